// The Devices screen (`/`): the snapshot's device items, filtered, searched and sorted in the page (no request), the
// filter kept in the URL's query; the result diffed by id against the shown list and animated (WindowedList: only
// the rows in view are elements).

import { getJSON } from "./api.js";
import { sectionItems } from "./stream.js";
import { WindowedList } from "./windowed.js";
import { ago, compareAddresses, deviceName, expandableList, fill, h, isRandomMAC, presenceText, sourcesOf, timeElement } from "./text.js";

/** The filter buttons: query value, label, test. */
const filters = [
  ["online", "Online", (item) => item.online],
  ["offline", "Offline", (item) => !item.online],
  ["new", "New today", (item, seen) => seen && new Date(seen.firstSeen).toDateString() === new Date().toDateString()],
  ["important", "Important", (item) => item.important],
  ["random", "Random MAC", (item) => item.macAddresses?.some(isRandomMAC) || ["resolvable-private", "non-resolvable"].includes(item.bluetooth?.addressType)],
];
const sources = [
  ["mdns", "mDNS"],
  ["neighbour", "Neighbour"],
  ["bluetooth", "Bluetooth"],
];
const sorts = [
  ["name", "Name"],
  ["seen", "Last seen"],
  ["address", "Address"],
];

/** The filter in the URL: `?q=tv&show=online,important&source=mdns&sort=seen`. */
function readQuery() {
  const query = new URLSearchParams(location.search);
  const list = (name) => new Set((query.get(name) ?? "").split(",").filter(Boolean));
  return { text: query.get("q") ?? "", show: list("show"), source: list("source"), sort: query.get("sort") ?? "name" };
}

function writeQuery(state) {
  const query = new URLSearchParams();
  if (state.text) query.set("q", state.text);
  if (state.show.size) query.set("show", [...state.show].join(","));
  if (state.source.size) query.set("source", [...state.source].join(","));
  if (state.sort !== "name") query.set("sort", state.sort);
  const search = query.toString();
  history.replaceState(history.state, "", location.pathname + (search ? `?${search}` : ""));
}

/** Each item's search text, made once: the applier keeps an unchanged item's object, so a keystroke reuses them. */
const searchTexts = new WeakMap();

/** The text a search matches: names, addresses, MACs, vendor, services, Bluetooth facts. */
function searchText(item) {
  let text = searchTexts.get(item);
  if (text === undefined) searchTexts.set(item, (text = madeSearchText(item)));
  return text;
}

/**
 * Makes the items' search texts while the page is idle, a few at a time, so that the first keystroke does not make
 * them all (10,000 devices: ~100 ms).
 */
function prepareSearchTexts(items) {
  let index = 0;
  const step = (deadline) => {
    while (index < items.length && deadline.timeRemaining() > 1) searchText(items[index++]);
    if (index < items.length) requestIdleCallback(step);
  };
  requestIdleCallback(step);
}

function madeSearchText(item) {
  return [
    item.displayName, item.label, item.hostName, item.vendor, ...(item.addresses ?? []), ...(item.macAddresses ?? []),
    ...(item.services ?? []).flatMap((service) => [service.name, service.type]),
    item.bluetooth?.name, item.bluetooth?.manufacturer, item.bluetooth?.address,
  ].filter(Boolean).join("\n").toLowerCase();
}

export function matches(item, state, seen) {
  for (const [key, , test] of filters) if (state.show.has(key) && !test(item, seen)) return false;
  if (state.source.size && !sourcesOf(item).some((source) => state.source.has(source))) return false;
  const terms = searchTerms(state.text);
  if (terms.length === 0) return true;
  const text = searchText(item);
  return terms.every((term) => text.includes(term));
}

/** The search's words, split once per text (not once per item). */
let lastTerms = { text: null, terms: [] };
function searchTerms(text) {
  if (lastTerms.text !== text) lastTerms = { text, terms: text.toLowerCase().split(/\s+/).filter(Boolean) };
  return lastTerms.terms;
}

function sorted(items, sort, known) {
  if (sort === "name") return items; // the snapshot's order: by display name, then first MAC address
  const copy = [...items];
  if (sort === "address") copy.sort((a, b) => compareAddresses(a.addresses?.[0], b.addresses?.[0]) || a.id.localeCompare(b.id));
  if (sort === "seen") {
    const seen = (item) => (item.online ? Infinity : Date.parse(known.get(item.id)?.lastSeen ?? "") || 0);
    copy.sort((a, b) => seen(b) - seen(a) || a.id.localeCompare(b.id));
  }
  return copy;
}

function serviceText(service) {
  return `${service.name} (${service.type}${service.port ? `:${service.port}` : ""})`;
}

export class DevicesScreen {
  constructor(main, live) {
    this.live = live;
    this.state = readQuery();
    this.known = new Map(); // id → KnownDevice: firstSeen, lastSeen
    this.payloads = new Map(); // id → {item, firstSeen, lastSeen, payload}
    this.search = h("input", { type: "search", id: "device-search", placeholder: "Name, address, MAC, vendor, service…", autocomplete: "off" });
    this.search.value = this.state.text;
    this.search.addEventListener("input", () => this.changeFilter(() => (this.state.text = this.search.value)));
    this.buttons = new Map();
    const toggle = (group, key, label) => {
      const button = h("button", { type: "button", class: "chip", "aria-pressed": String(this.state[group].has(key)) }, label);
      button.addEventListener("click", () => this.changeFilter(() => {
        const set = this.state[group];
        if (set.has(key)) set.delete(key);
        else {
          set.add(key);
          if (key === "online") set.delete("offline");
          if (key === "offline") set.delete("online");
        }
      }));
      this.buttons.set(`${group}:${key}`, button);
      return button;
    };
    this.sortSelect = h("select", { id: "device-sort" }, sorts.map(([key, label]) => h("option", { value: key, selected: key === this.state.sort }, label)));
    this.sortSelect.addEventListener("change", () => this.changeFilter(() => (this.state.sort = this.sortSelect.value)));
    this.count = h("p", { class: "count", role: "status" });
    this.listElement = h("ul", { class: "devices rows", "aria-label": "Devices" });
    this.list = new WindowedList(this.listElement, { create: () => this.createRow(), update: (row, item) => this.updateRow(row, item) });
    fill(main,
      h("h1", {}, "Devices"),
      h("div", { class: "toolbar" },
        h("label", { for: "device-search", class: "search" }, h("span", { class: "label" }, "Search"), this.search),
        h("div", { class: "chips", role: "group", "aria-label": "Show" }, filters.map(([key, label]) => toggle("show", key, label))),
        h("div", { class: "chips", role: "group", "aria-label": "Heard over" }, sources.map(([key, label]) => toggle("source", key, label))),
        h("label", { for: "device-sort", class: "sort" }, h("span", { class: "label" }, "Sort by"), this.sortSelect)),
      this.count,
      h("div", { class: "rows-head", "aria-hidden": "true" }, ["Device", "Presence", "Vendor", "Addresses", "Services", "Last seen"].map((title) => h("span", {}, title))),
      this.listElement);
    // First and last seen: asked for by update() once a snapshot is shown, then every minute.
    this.timer = setInterval(() => this.loadKnown(), 60_000);
  }

  /** Reads ListKnownDevices for first and last seen (not item content: it would update every device each second). */
  async loadKnown() {
    try {
      const reply = await getJSON("/api/known");
      this.known = new Map(reply.devices.map((device) => [device.id, device]));
      for (const id of this.payloads.keys()) if (!this.known.has(id)) this.payloads.delete(id);
      this.render(this.live.snapshot);
    } catch {
      // first and last seen stay unknown; the list itself comes from the stream
    }
  }

  changeFilter(change) {
    change();
    for (const [key, button] of this.buttons) {
      const [group, value] = key.split(":");
      button.setAttribute("aria-pressed", String(this.state[group].has(value)));
    }
    writeQuery(this.state);
    this.render(this.live.snapshot);
  }

  /** Called with each new snapshot, and the changes that made it. */
  update(snapshot, changes) {
    const inserted = changes?.itemInserts?.some((insert) => insert.item.kind === "peer");
    const flipped = changes?.itemUpdates?.some((update) => update.item.kind === "peer" && this.known.get(update.item.id)?.online !== update.item.online);
    if (changes === null || inserted || flipped) {
      clearTimeout(this.knownTimer);
      this.knownTimer = setTimeout(() => this.loadKnown(), this.known.size ? 2000 : 0);
    }
    this.render(snapshot);
    if (changes === null) prepareSearchTexts(sectionItems(snapshot, "networks"));
  }

  render(snapshot) {
    if (!snapshot) return;
    const devices = sectionItems(snapshot, "networks").filter((item) => item.kind === "peer");
    const shown = sorted(devices.filter((item) => matches(item, this.state, this.known.get(item.id))), this.state.sort, this.known);
    this.list.show(shown.map((item) => this.payload(item)));
    const scanning = snapshot.sections.some((section) => section.id === "networks");
    this.count.textContent = !scanning
      ? "Scanning is off: no devices are listed."
      : shown.length === devices.length ? `${devices.length} devices` : `${shown.length} of ${devices.length} devices`;
  }

  /**
   * A row's payload: the item with its first and last seen, so that a new ListKnownDevices reply updates the row. The
   * same object while neither changed, also across ListKnownDevices replies, so KeyedList finds an unchanged row without
   * comparing content (with 10,000 devices, comparing every row at each reply stalled the page for a second).
   */
  payload(item) {
    const known = this.known.get(item.id);
    if (!known) return item;
    const cached = this.payloads.get(item.id);
    const { firstSeen, lastSeen } = known;
    if (cached?.item === item && cached.firstSeen === firstSeen && cached.lastSeen === lastSeen) return cached.payload;
    const payload = { ...item, seen: { firstSeen, lastSeen } };
    this.payloads.set(item.id, { item, firstSeen, lastSeen, payload });
    return payload;
  }

  createRow() {
    const row = h("li", { class: "row device" });
    row.parts = {
      name: h("a", { class: "name" }),
      badges: h("span", { class: "badges" }),
      host: h("span", { class: "sub" }),
      presence: h("span", { class: "presence" }),
      vendor: h("span", { class: "vendor" }),
      addresses: h("div", { class: "addresses" }),
      services: h("div", { class: "services" }),
      seen: h("span", { class: "seen" }),
    };
    const cell = (label, ...content) => h("div", { class: "cell" }, h("span", { class: "cell-label" }, label), ...content);
    row.append(
      h("div", { class: "cell title" }, row.parts.name, row.parts.badges, row.parts.host),
      cell("Presence", row.parts.presence), cell("Vendor", row.parts.vendor), cell("Addresses", row.parts.addresses),
      cell("Services", row.parts.services), cell("Last seen", row.parts.seen));
    return row;
  }

  updateRow(row, item) {
    const { parts } = row;
    parts.name.textContent = deviceName(item);
    parts.name.href = `/devices/${encodeURIComponent(item.id)}`;
    fill(parts.badges,
      item.important ? h("span", { class: "badge important", title: "marked important" }, "★ important") : null,
      item.label ? h("span", { class: "badge label", title: "named by a person" }, "label") : null,
      item.bluetooth ? h("span", { class: "badge bt", title: "heard over Bluetooth LE" }, "BLE") : null);
    parts.host.textContent = item.hostName && item.hostName !== item.displayName ? item.hostName : "";
    row.classList.toggle("offline", !item.online);
    parts.presence.textContent = presenceText(item.online, item.presenceReason);
    parts.vendor.textContent = item.vendor ?? item.bluetooth?.manufacturer ?? (item.macAddresses?.some(isRandomMAC) ? "random MAC" : "—");
    const macs = (item.macAddresses ?? []).filter((mac) => mac !== deviceName(item));
    const addresses = [...(item.addresses ?? []), ...macs];
    fill(parts.addresses, addresses.length ? expandableList(addresses) : "—");
    fill(parts.services, item.services?.length ? expandableList(item.services.map(serviceText)) : "—");
    const { seen } = item;
    fill(parts.seen, item.online ? "now" : seen ? [timeElement(seen.lastSeen), h("span", { class: "sub" }, ago(seen.lastSeen))] : "—");
  }

  dispose() {
    this.list.dispose();
    clearInterval(this.timer);
    clearTimeout(this.knownTimer);
  }
}
