// Making elements (text always through textContent) and wording items as peerscanctl does.

/**
 * `h("a", {href: "/wifi", class: "nav"}, "Wi-Fi")`: an element with attributes (no `style`, no `on…`: the CSP) and
 * children (strings become text nodes; null and false are skipped).
 */
export function h(tag, attributes = {}, ...children) {
  const element = tag.startsWith("svg:")
    ? document.createElementNS("http://www.w3.org/2000/svg", tag.slice(4))
    : document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children (text and elements; text stays text). */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** The name people see: the label or display name, else the first MAC address, else the Bluetooth address. */
export function deviceName(item) {
  return item.displayName ?? item.macAddresses?.[0] ?? item.bluetooth?.name ?? item.bluetooth?.address ?? item.hostName ?? item.id;
}

/**
 * `online — answered via arp,ndp`, `offline — unanswered, asked arp,mdns`, `offline — withdrawn (its mDNS records
 * went)`; `online`/`offline` alone when the daemon did not say why.
 */
export function presenceText(online, reason) {
  const state = online ? "online" : "offline";
  if (!reason) return state;
  let match = /^answered via=(.*)$/.exec(reason);
  if (match) return `${state} — answered via ${match[1]}`;
  match = /^unanswered asked=(.*)$/.exec(reason);
  if (match) return `${state} — unanswered, asked ${match[1]}`;
  if (reason === "withdrawn") return `${state} — withdrawn (its mDNS records went)`;
  return `${state} — ${reason}`;
}

/** Whether a MAC address is locally administered (randomized): bit 1 of its first octet. */
export function isRandomMAC(mac) {
  return (parseInt(mac.slice(0, 2), 16) & 0x02) !== 0;
}

/** Where a device was heard: `mdns` (a host name), `neighbour` (a MAC address), `bluetooth`. */
export function sourcesOf(item) {
  const sources = [];
  if (item.hostName) sources.push("mdns");
  if (item.macAddresses?.length) sources.push("neighbour");
  if (item.bluetooth) sources.push("bluetooth");
  return sources;
}

/** Signal bars as four spans (CSS draws them), with the count for screen readers. */
export function barsElement(count) {
  const element = h("span", { class: `bars bars-${count}`, role: "img", "aria-label": `signal ${count} of 4 bars` });
  for (let bar = 1; bar <= 4; bar++) element.append(h("span", { class: bar <= count ? "bar on" : "bar" }));
  element.title = `${count} of 4 bars`;
  return element;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: "short" });

/** `10:32` for today, `24 Nov 2026, 10:32` otherwise (local time); the RFC 3339 text in `datetime`. */
export function timeElement(rfc3339) {
  if (!rfc3339) return h("span", { class: "muted" }, "—");
  const date = new Date(rfc3339);
  const today = new Date().toDateString() === date.toDateString();
  return h("time", { datetime: rfc3339, title: date.toString() }, today ? `today ${timeOnly.format(date)}` : dateTime.format(date));
}

/** `2 min ago`, `3 h ago`, `5 d ago`. */
export function ago(rfc3339, now = Date.now()) {
  const seconds = Math.max(0, (now - new Date(rfc3339).getTime()) / 1000);
  if (seconds < 90) return "just now";
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86400)} d ago`;
}

/** Compares addresses: IPv4 numerically, then IPv6 as text; none last. */
export function compareAddresses(a, b) {
  if (!a || !b) return a ? -1 : b ? 1 : 0;
  const v4 = (address) => (/^\d+\.\d+\.\d+\.\d+$/.test(address) ? address.split(".").reduce((sum, octet) => sum * 256 + Number(octet), 0) : null);
  const [x, y] = [v4(a), v4(b)];
  if (x !== null && y !== null) return x - y;
  if (x !== null || y !== null) return x !== null ? -1 : 1;
  return a.localeCompare(b);
}

/** A long text that wraps; a list longer than `visible` entries shows the rest behind a "N more" toggle. */
export function expandableList(values, visible = 3, className = "values") {
  const list = h("ul", { class: className });
  values.slice(0, visible).forEach((value) => list.append(h("li", {}, value)));
  if (values.length <= visible) return list;
  const rest = values.slice(visible).map((value) => h("li", {}, value));
  const details = h("details", { class: "more" }, h("summary", {}, `${rest.length} more`), h("ul", { class: className }, rest));
  return h("div", {}, list, details);
}
