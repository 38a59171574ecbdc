// The Wi-Fi screen (`/wifi`): this host's wireless interfaces and the network it is on (✓), then the networks in
// range as a Wi-Fi settings screen lists them — lock, bars, bands, hidden networks — with an evil-twin badge.

import { KeyedList } from "./list.js";
import { sectionItems } from "./stream.js";
import { barsElement, expandableList, fill, h } from "./text.js";
import { WindowedList } from "./windowed.js";

/** WiFiSecurity.strength: a higher one resists more attacks. */
const strength = { open: 0, wep: 1, owe: 2, "wpa-personal": 3, "wpa2-personal": 4, "wpa3-transition": 5, "wpa3-personal": 6, enterprise: 6 };
const secured = (security) => security !== "open" && security !== "owe";

/**
 * The possible evil twins the page can tell from the snapshot: a network whose SSID this host is connected to under
 * a stronger security (peerscand's `reason=weaker-security` against the connected network; the full baseline — the
 * networks trusted, the access points' vendors — is ListKnownWiFiNetworks', for the control group only).
 *
 * @returns {Map<string, string>} network id → reason
 */
export function evilTwins(networks, interfaces) {
  const connected = networks.filter((network) => network.connected && network.ssid !== null);
  for (const wireless of interfaces) {
    const link = wireless.connected;
    if (!link?.ssid) continue;
    const network = networks.find((candidate) => candidate.id === link.network);
    if (network && !connected.includes(network)) connected.push(network);
  }
  const twins = new Map();
  for (const network of networks) {
    if (network.connected || network.ssid === null) continue;
    const known = connected.filter((candidate) => candidate.ssid === network.ssid);
    if (!known.length) continue;
    const weakest = Math.min(...known.map((candidate) => strength[candidate.security] ?? 0));
    if ((strength[network.security] ?? 0) < weakest) {
      twins.set(network.id, `possible evil twin: ${network.security} where the network this host is on uses ${known.map((candidate) => candidate.security).join(", ")}`);
    }
  }
  return twins;
}

/** A padlock drawn in SVG (an emoji lock depends on the fonts installed). */
function lockIcon() {
  return h("svg:svg", { class: "lock", viewBox: "0 0 12 14", width: 12, height: 14, role: "img", "aria-label": "secured" },
    h("svg:path", { d: "M3 6V4a3 3 0 0 1 6 0v2", class: "lock-shackle" }),
    h("svg:rect", { x: 1, y: 6, width: 10, height: 8, rx: 1.5, class: "lock-body" }));
}

function bands(network) {
  const set = [...new Set(network.accessPoints.map((point) => point.band).filter(Boolean))];
  return set.length ? set.join(", ") : "—";
}

export class WiFiScreen {
  constructor(main, live) {
    this.live = live;
    this.interfaceList = h("ul", { class: "interfaces", "aria-label": "Wireless interfaces" });
    this.interfaces = new KeyedList(this.interfaceList, {
      create: () => h("li", { class: "interface" }),
      update: (row, item) => fill(row,
        h("strong", {}, item.name), ` ${item.up ? "up" : "down"}`,
        item.connected ? [", connected to ", h("span", { class: "ssid" }, item.connected.ssid ?? "(hidden)"),
          ` (${item.connected.bssid}${item.connected.band ? `, ${item.connected.band}` : ""})`] : item.up ? ", not connected" : ""),
    });
    this.count = h("p", { class: "count", role: "status" });
    this.listElement = h("ul", { class: "networks rows", "aria-label": "Wi-Fi networks" });
    this.list = new WindowedList(this.listElement, { create: () => this.createRow(), update: (row, item) => this.updateRow(row, item) });
    fill(main, h("h1", {}, "Wi-Fi"), this.interfaceList, this.count,
      h("div", { class: "rows-head", "aria-hidden": "true" }, ["Network", "Signal", "Band", "Security", "Access points"].map((title) => h("span", {}, title))),
      this.listElement);
  }

  update(snapshot) {
    if (!snapshot) return;
    const interfaces = sectionItems(snapshot, "config").filter((item) => item.kind === "wifiInterface");
    const networks = sectionItems(snapshot, "networks").filter((item) => item.kind === "wifiNetwork");
    this.twins = evilTwins(networks, interfaces);
    this.interfaces.show(interfaces);
    // The badge is derived from other items: carry it in the shown payload so a new reason updates the row.
    this.list.show(networks.map((network) => (this.twins.has(network.id) ? { ...network, twin: this.twins.get(network.id) } : network)));
    const scanning = snapshot.sections.some((section) => section.id === "networks");
    this.count.textContent = !scanning ? "Scanning is off."
      : !interfaces.length && !networks.length ? "No wireless interface (or peerscand runs with --no-wifi)."
      : `${networks.length} networks in range`;
  }

  createRow() {
    const row = h("li", { class: "row network" });
    row.parts = { name: h("span", { class: "name" }), twin: h("span"), bars: h("span"), bands: h("span"), security: h("span"), points: h("div") };
    const cell = (label, content) => h("div", { class: "cell" }, h("span", { class: "cell-label" }, label), content);
    row.append(h("div", { class: "cell title" }, row.parts.name, row.parts.twin), cell("Signal", row.parts.bars),
      cell("Band", row.parts.bands), cell("Security", row.parts.security), cell("Access points", row.parts.points));
    return row;
  }

  updateRow(row, network) {
    const { parts } = row;
    fill(parts.name, network.connected ? h("span", { class: "connected-mark", title: "this host is connected" }, "✓ ") : null,
      network.ssid === null ? h("em", { class: "hidden-ssid" }, "(hidden)") : network.ssid);
    row.classList.toggle("connected", network.connected === true);
    fill(parts.twin, network.twin ? h("span", { class: "badge twin" }, "⚠ ", network.twin) : null);
    fill(parts.bars, barsElement(network.bars));
    parts.bands.textContent = bands(network);
    fill(parts.security, secured(network.security) ? lockIcon() : null, network.security);
    fill(parts.points, expandableList(network.accessPoints.map((point) =>
      `${point.bssid} · ${point.channel !== null ? `channel ${point.channel}` : `${point.frequency} MHz`}${point.band ? ` · ${point.band}` : ""}`), 2));
  }

  dispose() {
    this.list.dispose();
  }
}
