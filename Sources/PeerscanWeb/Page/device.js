// The device page (`/devices/ID`): GetDevice's reply — every identity, first and last seen, the presence timelines —,
// its offline and online alerts (alerts.js) and the edits (label, note, important, IRK, merge, split, forget) as
// `POST /api/METHOD`. Refreshed when the live snapshot changes the device's item.

import { alertsSection, refreshAlerts } from "./alerts.js";
import { getJSON } from "./api.js";
import { editsSection, refreshMergeChoices, refreshSplitKeys } from "./edits.js";
import { sectionItems } from "./stream.js";
import { barsElement, deviceName, fill, h, isRandomMAC, presenceText, timeElement } from "./text.js";
import { timelineFigure } from "./timeline.js";

const hour = 3_600_000;

function sightingsTable(caption, sightings, describe = () => null) {
  if (!sightings.length) return null;
  return h("table", { class: "sightings" },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Value"), h("th", { scope: "col" }, "First seen"), h("th", { scope: "col" }, "Last seen"))),
    h("tbody", {}, sightings.map((sighting) => h("tr", {},
      h("td", { class: "mono wrap" }, sighting.value, describe(sighting.value) ? h("span", { class: "sub" }, describe(sighting.value)) : null),
      h("td", {}, timeElement(sighting.firstSeen)), h("td", {}, timeElement(sighting.lastSeen))))));
}

function servicesList(services) {
  if (!services?.length) return null;
  return h("section", { class: "card" }, h("h2", {}, "Services"),
    h("ul", { class: "services-full" }, services.map((service) => h("li", {},
      h("strong", { class: "wrap" }, service.name), " ", h("span", { class: "mono" }, `${service.type}.${service.domain}:${service.port}`),
      Object.keys(service.txt ?? {}).length
        ? h("details", { class: "txt" }, h("summary", {}, `TXT (${Object.keys(service.txt).length})`),
            h("dl", {}, Object.entries(service.txt).flatMap(([key, value]) => [h("dt", { class: "mono wrap" }, key), h("dd", { class: "mono wrap" }, value ?? "(no value)")])))
        : null))));
}

function bluetoothSection(facts) {
  if (!facts) return null;
  const row = (label, value) => (value === null || value === undefined || value === "" ? null : [h("dt", {}, label), h("dd", {}, value)]);
  return h("section", { class: "card" }, h("h2", {}, "Bluetooth LE"),
    h("dl", { class: "facts" },
      row("Address", h("span", { class: "mono" }, `${facts.address} (${facts.addressType})`)),
      row("Name", facts.name), row("Manufacturer", facts.manufacturer), row("Appearance", facts.appearance),
      row("Signal", barsElement(facts.bars)),
      row("Listed", facts.ephemeral ? "only while heard (ephemeral)" : "remembered"),
      row("Services", facts.services.length ? h("ul", { class: "values mono" }, facts.services.map((uuid) => h("li", {}, uuid))) : null)));
}

export class DeviceScreen {
  constructor(main, live, id) {
    this.live = live;
    this.id = id;
    this.item = undefined;
    this.info = h("div", { class: "device-info" }, h("p", { class: "count" }, "Loading…"));
    this.edits = h("div");
    fill(main, this.info, this.edits);
    this.load();
  }

  async load() {
    try {
      this.reply = await getJSON(`/api/devices/${encodeURIComponent(this.id)}`);
      this.render();
    } catch (error) {
      fill(this.info, h("h1", {}, "Device"), h("p", { class: "error", role: "alert" },
        error.error === "io.peerscan.DeviceNotFound" ? "peerscand does not know this device (forgotten, or a wrong address)." : error.message),
        h("p", {}, h("a", { href: "/" }, "All devices")));
    }
  }

  /** Reloads GetDevice when the device's item changed (debounced: a burst is one request). */
  update(snapshot) {
    const item = sectionItems(snapshot, "networks").find((candidate) => candidate.id === this.id) ?? null;
    if (this.item !== undefined && JSON.stringify(item) !== JSON.stringify(this.item)) {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.load(), 500);
    }
    this.item = item;
    refreshMergeChoices(this.edits.querySelector("[data-merge-choices]"), snapshot, this.id);
  }

  render() {
    const reply = this.reply;
    const device = reply.device;
    const firstMAC = device?.macAddresses?.[0] ?? reply.macAddresses[0]?.value;
    const describeMAC = (mac) => (isRandomMAC(mac) ? "random (locally administered)" : mac === firstMAC && reply.vendor ? reply.vendor : null);
    const name = reply.label ?? reply.name ?? (device ? deviceName(device) : firstMAC ?? reply.id);
    const state = reply.online ? presenceText(true, device?.presenceReason) : reply.present ? presenceText(false, device?.presenceReason) : "absent — remembered, not in the snapshot";
    const now = Date.now();
    // The edits are made once: a reload after an edit keeps their fields, focus and outcome; the split form's keys
    // follow the reply (a merge adds keys).
    if (!this.edits.firstChild) this.edits.append(alertsSection(reply), editsSection(reply, this.live, () => this.load()));
    refreshAlerts(this.edits.querySelector("[data-alerts]"), reply);
    refreshSplitKeys(this.edits.querySelector("[data-split-keys]"), reply);
    fill(this.info,
      h("p", { class: "crumbs" }, h("a", { href: "/" }, "Devices"), " › "),
      h("h1", { class: "wrap" }, name, reply.important ? h("span", { class: "badge important" }, "★ important") : null),
      h("p", { class: reply.online ? "state online" : "state offline" }, state),
      reply.note ? h("p", { class: "note wrap" }, reply.note) : null,
      h("dl", { class: "facts card" },
        h("dt", {}, "First seen"), h("dd", {}, timeElement(reply.firstSeen)),
        h("dt", {}, "Last seen"), h("dd", {}, reply.online ? "now" : timeElement(reply.lastSeen)),
        h("dt", {}, "Vendor"), h("dd", {}, reply.vendor ?? device?.bluetooth?.manufacturer ?? "—"),
        h("dt", {}, "Id"), h("dd", { class: "mono wrap" }, reply.id)),
      h("section", { class: "card" }, h("h2", {}, "Presence"),
        timelineFigure(reply.transitions, { now, window: 24 * hour, title: "Last 24 hours", tickEvery: 3 * hour }),
        timelineFigure(reply.transitions, { now, window: 7 * 24 * hour, title: "Last 7 days", tickEvery: 24 * hour }),
        this.transitionList(reply.transitions)),
      h("section", { class: "card" }, h("h2", {}, "Identities"),
        sightingsTable("MAC addresses", reply.macAddresses, describeMAC),
        sightingsTable("Addresses", reply.addresses),
        sightingsTable("Host names", reply.hostNames),
        !reply.macAddresses.length && !reply.addresses.length && !reply.hostNames.length ? h("p", { class: "muted" }, "No MAC address, address or host name noted.") : null),
      servicesList(device?.services),
      bluetoothSection(device?.bluetooth));
  }

  transitionList(transitions) {
    if (!transitions.length) return h("p", { class: "muted" }, "No transition noted.");
    const last = transitions.slice(-20).reverse();
    return h("details", { class: "transitions" }, h("summary", {}, `Transitions (last ${last.length} of ${transitions.length})`),
      h("ol", {}, last.map((transition) => h("li", {}, timeElement(transition.at), " ", presenceText(transition.online, transition.reason)))));
  }

  dispose() {
    clearTimeout(this.timer);
  }
}
