// The device page's alert rule (docs/alerts.md): whether the device alerts when it goes offline and comes back
// online — its own rule (ListAlertRules, read through `GET /api/alert-rules`), else the default rule, else the rules
// out of the box (important devices only) — and the choice of default / offline and online / none, sent as
// SetAlertRule (events null, ["offline", "online"] or []).

import { callMethod, getJSON } from "./api.js";
import { field, form } from "./edits.js";
import { h } from "./text.js";

/** The events each choice sends: null removes the device's rule (the default applies again). */
const choices = { default: null, presence: ["offline", "online"], none: [] };

/** "offline and online", "offline only", "online only" or "none": the presence events among `events`. */
export function presenceText(events) {
  const offline = events.includes("offline");
  const online = events.includes("online");
  if (offline && online) return "offline and online";
  if (offline) return "offline only";
  return online ? "online only" : "none";
}

/** What applies to a device without a rule of its own: the default rule's events, else the rules out of the box. */
export function defaultText(defaultRule, important) {
  if (defaultRule) return `default: ${presenceText(defaultRule.events)}`;
  return important ? "default: offline and online (an important device)" : "default: none (only important devices alert)";
}

/** The choice that shows a device's own rule: `custom` for one that lists only one of the two. */
function choiceOf(rule) {
  if (!rule) return "default";
  const shown = presenceText(rule.events);
  return shown === "offline and online" ? "presence" : shown === "none" ? "none" : "custom";
}

/** The Alerts card: the state line, the choice and its Save; `refreshAlerts` fills it. */
export function alertsSection(reply) {
  const id = reply.id;
  const state = h("p", { class: "alert-state", "data-alert-state": "" }, "Loading the alert rules…");
  const choice = h("select", { disabled: true },
    h("option", { value: "default" }, "Default"),
    h("option", { value: "presence" }, "Offline and online"),
    h("option", { value: "none" }, "None"),
    h("option", { value: "custom", hidden: true, disabled: true }, "Its own rule"));
  const element = form("Offline and online alerts", [
    state,
    field("Alert when this device goes offline or comes back", choice, "Default: the default rule (peerscanctl notify), else important devices only."),
  ], "Save", async () => {
    if (!element.rules) throw new Error("The alert rules did not load: nothing was changed.");
    if (!(choice.value in choices)) throw new Error("Choose default, offline and online, or none.");
    await callMethod("SetAlertRule", { device: id, events: choices[choice.value] });
    await loadRules(element);
    return "Saved.";
  });
  element.dataset.alerts = "";
  element.choice = choice;
  element.state = state;
  element.reply = reply;
  loadRules(element).catch((error) => {
    element.status.className = "form-status error";
    element.status.textContent = error.message;
  });
  return h("section", { class: "card" }, h("h2", {}, "Alerts"), element);
}

/** Reads the rules again and shows them. */
async function loadRules(element) {
  element.rules = (await getJSON("/api/alert-rules")).rules;
  showRules(element, true);
}

/** Shows the device's rule, or what applies without one; `choose` also sets the choice to it. */
function showRules(element, choose) {
  if (!element.rules) return;
  const rule = element.rules.find((candidate) => candidate.device === element.reply.id) ?? null;
  const fallback = element.rules.find((candidate) => candidate.device === null) ?? null;
  const defaultLabel = defaultText(fallback, element.reply.important);
  element.choice.options[0].textContent = `Default (${defaultLabel.slice("default: ".length)})`;
  element.choice.options[3].textContent = rule ? `Its own rule: ${presenceText(rule.events)}` : "Its own rule";
  element.state.textContent = rule ? `This device's rule: ${presenceText(rule.events)}` : defaultLabel;
  element.state.dataset.alertState = rule ? choiceOf(rule) : "default";
  if (choose) {
    element.choice.options[3].hidden = choiceOf(rule) !== "custom";
    element.choice.value = choiceOf(rule);
    element.choice.disabled = false;
  }
}

/** Follows GetDevice's reply (a device marked important, or no more, changes what the default means for it). */
export function refreshAlerts(element, reply) {
  if (!element) return;
  element.reply = reply;
  showRules(element, false);
}
