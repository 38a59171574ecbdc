// The device page's edits, each a form posting one io.peerscan method: SetDeviceLabel (name, note, important),
// SetDeviceIRK (a write-only field: the key is sent, never shown or kept by the page), MergeDevices, SplitDevice and
// ForgetDevice (asks once more).

import { callMethod } from "./api.js";
import { navigate } from "./router.js";
import { sectionItems } from "./stream.js";
import { deviceName, h } from "./text.js";

/** A form whose submit runs `action`, with a status line for its outcome. */
export function form(title, fields, submitLabel, action) {
  const status = h("p", { class: "form-status", role: "status" });
  const submit = h("button", { type: "submit" }, submitLabel);
  const element = h("form", { class: "edit" }, h("h3", {}, title), fields, h("div", { class: "actions" }, submit), status);
  element.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    status.className = "form-status";
    status.textContent = "Sending…";
    try {
      status.textContent = (await action()) ?? "Done.";
    } catch (error) {
      status.className = "form-status error";
      status.textContent = error.message;
    } finally {
      submit.disabled = false;
    }
  });
  element.status = status;
  return element;
}

/** A labelled control (the label names it: `for` its id), with a hint under it. */
export function field(label, control, hint) {
  const id = `field-${Math.random().toString(36).slice(2)}`;
  control.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), control, hint ? h("p", { class: "hint" }, hint) : null);
}

/** `0011…ff` from `00:11:…`, `00 11 …`: 32 hex digits, or null when it is not a key. */
export function normalizedIRK(text) {
  const digits = text.replace(/[\s:-]/g, "").toLowerCase();
  return /^[0-9a-f]{32}$/.test(digits) ? digits : null;
}

export function editsSection(reply, live, reload) {
  const id = reply.id;
  const name = h("input", { type: "text", value: reply.label ?? "", autocomplete: "off", maxlength: 200 });
  const note = h("textarea", { rows: 3 });
  note.value = reply.note ?? "";
  const important = h("input", { type: "checkbox", checked: reply.important });
  const label = form("Name and note", [
    field("Name", name, "Shown instead of the name peerscand found; empty: the found name again."),
    field("Note", note),
    h("div", { class: "field check" }, h("label", {}, important, " Important (its comings and goings are logged at warning)")),
  ], "Save", async () => {
    await callMethod("SetDeviceLabel", { id, name: name.value, note: note.value, important: important.checked });
    reload();
    return "Saved.";
  });

  const key = h("input", { type: "password", autocomplete: "off", spellcheck: "false", inputmode: "text", placeholder: "32 hex digits" });
  const irk = form("Bluetooth identity key (IRK)", [
    field("Key", key, "Most significant octet first, as the Core spec writes it. Write-only: the page never shows a key."),
  ], "Set key", async () => {
    const value = normalizedIRK(key.value);
    if (!value) throw new Error("A key is 32 hex digits.");
    await callMethod("SetDeviceIRK", { id, irk: value });
    key.value = "";
    return "Key set.";
  });
  const removeKey = h("button", { type: "button", class: "secondary" }, "Remove key");
  removeKey.addEventListener("click", async () => {
    try {
      await callMethod("SetDeviceIRK", { id, irk: null });
      irk.status.textContent = "Key removed (if there was one).";
    } catch (error) {
      irk.status.textContent = error.message;
    }
  });
  irk.querySelector(".actions").append(removeKey);

  const choices = h("select", { multiple: true, "data-merge-choices": "" });
  refreshMergeChoices(choices, live.snapshot, id);
  const merge = form("Merge", [field("These are the same device as this one", choices, "Their MAC addresses, host names and histories become this device's.")],
    "Merge into this device", async () => {
      const selected = [...choices.selectedOptions].map((option) => option.value);
      if (!selected.length) throw new Error("Choose the devices to merge.");
      await callMethod("MergeDevices", { id, others: selected });
      reload();
      return `Merged ${selected.length}.`;
    });

  const keyChoice = h("select", { "data-split-keys": "" });
  const split = form("Split", [field("This key is a device of its own", keyChoice)], "Split off", async () => {
    const result = await callMethod("SplitDevice", { id, key: keyChoice.value });
    navigate(`/devices/${encodeURIComponent(result.id)}`);
  });
  refreshSplitKeys(keyChoice, reply);

  const confirm = h("button", { type: "submit", class: "danger", hidden: true }, "Forget it now");
  const forget = form("Forget", [h("p", { class: "hint" }, "Removes the device and its history. One that answers stays listed, as a new device.")],
    "Forget this device…", async () => {
      if (confirm.hidden) {
        confirm.hidden = false;
        confirm.focus();
        return "Press “Forget it now” to confirm.";
      }
      await callMethod("ForgetDevice", { id });
      navigate("/");
    });
  forget.querySelector(".actions").append(confirm);

  return h("section", { class: "card edits" }, h("h2", {}, "Edit"), label, irk, merge, split, forget);
}

/**
 * Fills the merge form's list with the devices of `snapshot` other than `id` (kept selections stay selected); a list
 * that shows them already is left alone. The device page calls it for each snapshot: the list follows devices that
 * come and go, and is filled once the first snapshot arrives if GetDevice answered before it.
 */
export function refreshMergeChoices(select, snapshot, id) {
  if (!select) return;
  const others = sectionItems(snapshot, "networks").filter((item) => item.kind === "peer" && item.id !== id && !item.bluetooth?.ephemeral);
  const labels = others.map((item) => `${deviceName(item)}${item.online ? "" : " (offline)"}`);
  const signature = JSON.stringify(others.map((item, index) => [item.id, labels[index]]));
  if (select.dataset.mergeChoices === signature) return;
  const selected = new Set([...select.selectedOptions].map((option) => option.value));
  select.replaceChildren(...others.map((item, index) => h("option", { value: item.id, selected: selected.has(item.id) || null }, labels[index])));
  select.size = Math.min(8, Math.max(3, others.length));
  select.dataset.mergeChoices = signature;
}

/** Offers the device's keys (GetDevice's `reply`) in the split form; the form shows only for a device of two or more. */
export function refreshSplitKeys(select, reply) {
  if (!select) return;
  const keys = [...reply.macAddresses.map((sighting) => `mac:${sighting.value}`), ...reply.hostNames.map((sighting) => `host:${sighting.value}`)];
  const signature = JSON.stringify(keys);
  if (select.dataset.splitKeys === signature) return;
  const chosen = select.value;
  select.replaceChildren(...keys.map((value) => h("option", { value, selected: value === chosen || null }, value)));
  select.dataset.splitKeys = signature;
  select.closest("form").hidden = keys.length < 2;
}
