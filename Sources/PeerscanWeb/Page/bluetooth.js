// The Bluetooth screen (`/bluetooth`): the devices heard over Bluetooth LE nearby — name, manufacturer, bars, and
// whether an IRK resolves its private address (yes/no: the key itself is never shown, nor sent to the page).

import { sectionItems } from "./stream.js";
import { barsElement, fill, h, presenceText } from "./text.js";
import { WindowedList } from "./windowed.js";

/** `IRK set — resolved to this device`, `no IRK set — …`, or the identity address of one that does not rotate. */
export function identityText(facts) {
  if (facts.addressType === "resolvable-private") {
    return facts.ephemeral ? "no IRK set — a private address no key resolves (listed while heard)" : "IRK set — resolved to this device";
  }
  if (facts.addressType === "non-resolvable") return "no — a non-resolvable private address";
  const kind = `${facts.addressType} address: its identity, no IRK needed`;
  return facts.ephemeral ? `${kind} (not admitted yet)` : kind;
}

export class BluetoothScreen {
  constructor(main, live) {
    this.live = live;
    this.count = h("p", { class: "count", role: "status" });
    this.listElement = h("ul", { class: "bluetooth rows", "aria-label": "Bluetooth devices" });
    this.list = new WindowedList(this.listElement, { create: () => this.createRow(), update: (row, item) => this.updateRow(row, item) });
    fill(main, h("h1", {}, "Bluetooth nearby"), this.count,
      h("div", { class: "rows-head", "aria-hidden": "true" }, ["Device", "Manufacturer", "Signal", "Address", "Resolved identity"].map((title) => h("span", {}, title))),
      this.listElement);
  }

  update(snapshot) {
    if (!snapshot) return;
    const devices = sectionItems(snapshot, "networks").filter((item) => item.kind === "peer" && item.bluetooth);
    this.list.show(devices);
    this.count.textContent = snapshot.sections.some((section) => section.id === "networks")
      ? `${devices.length} devices heard over Bluetooth LE` : "Scanning is off.";
  }

  createRow() {
    const row = h("li", { class: "row bt-device" });
    row.parts = { name: h("a", { class: "name" }), presence: h("span", { class: "sub" }), maker: h("span"), bars: h("span"), address: h("span", { class: "mono" }), identity: h("span") };
    const cell = (label, content) => h("div", { class: "cell" }, h("span", { class: "cell-label" }, label), content);
    row.append(h("div", { class: "cell title" }, row.parts.name, row.parts.presence), cell("Manufacturer", row.parts.maker),
      cell("Signal", row.parts.bars), cell("Address", row.parts.address), cell("Resolved identity", row.parts.identity));
    return row;
  }

  updateRow(row, item) {
    const facts = item.bluetooth;
    const { parts } = row;
    parts.name.textContent = facts.name ?? item.displayName ?? facts.address;
    parts.name.href = `/devices/${encodeURIComponent(item.id)}`;
    parts.presence.textContent = presenceText(item.online, item.presenceReason);
    row.classList.toggle("offline", !item.online);
    parts.maker.textContent = facts.manufacturer ?? item.vendor ?? "—";
    fill(parts.bars, barsElement(facts.bars));
    parts.address.textContent = `${facts.address} (${facts.addressType})`;
    parts.identity.textContent = identityText(facts);
  }

  dispose() {
    this.list.dispose();
  }
}
