// A device's presence over a window (24 h, 7 d) as SVG drawn to scale: every stretch online or offline as a bar from
// its start to its end (one shorter than a pixel still drawn a pixel wide), what the daemon did not know (before its
// first transition) left hatched, each transition a tick with its time and reason, an axis in local time, a legend.
// Where peerscanctl's terminal cells show one state per half hour, this shows each stretch as it was.

import { h, presenceText } from "./text.js";

const width = 1000;
const barTop = 6;
const barHeight = 28;
const height = 42;
/** The narrowest stretch drawn, in viewBox units (0.3 % of the width: a pixel at 360 px): a 30 s blip still shows. */
const minimumWidth = 3;

/**
 * The stretches of `[start, end)`: `{from, to, state: true|false|null, reason}`, oldest first; the state between two
 * transitions is the earlier one's, unknown (null) before the first.
 *
 * @param {{at: string, online: boolean, reason: string|null}[]} transitions oldest first
 */
export function stretches(transitions, start, end) {
  const result = [];
  let cursor = start;
  let state = null;
  let reason = null;
  for (const transition of transitions) {
    const at = Date.parse(transition.at);
    if (at > cursor && cursor < end) {
      result.push({ from: cursor, to: Math.min(at, end), state, reason });
      cursor = Math.min(at, end);
    }
    state = transition.online;
    reason = transition.reason;
  }
  if (cursor < end) result.push({ from: cursor, to: end, state, reason });
  return result;
}

/** The share of the known time online, or null if none of the window is known. */
export function uptime(parts) {
  let known = 0;
  let online = 0;
  for (const part of parts) {
    if (part.state === null) continue;
    known += part.to - part.from;
    if (part.state) online += part.to - part.from;
  }
  return known > 0 ? online / known : null;
}

const clock = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const day = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric" });
const full = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

function stateName(state) {
  return state === null ? "not known yet" : state ? "online" : "offline";
}

/**
 * The timeline figure of `window` milliseconds before `now`.
 *
 * @param {string} title `Last 24 hours`
 * @param {number} tickEvery milliseconds between axis labels
 */
export function timelineFigure(transitions, { now = Date.now(), window, title, tickEvery }) {
  const start = now - window;
  const x = (time) => ((time - start) / window) * width;
  const parts = stretches(transitions, start, now);
  const svg = h("svg:svg", { viewBox: `0 0 ${width} ${height}`, class: "timeline", role: "img", preserveAspectRatio: "none", "aria-label": `${title}: presence` });
  svg.append(h("svg:defs", {}, h("svg:pattern", { id: `hatch-${window}`, width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
    h("svg:rect", { width: 6, height: 6, class: "tl-unknown-ground" }), h("svg:line", { x1: 0, y1: 0, x2: 0, y2: 6, class: "tl-hatch" }))));
  // The widest first, so a short stretch widened to stay visible is drawn over its neighbours.
  const drawn = parts.map((part) => ({ ...part, x: x(part.from), w: x(part.to) - x(part.from) })).sort((a, b) => b.w - a.w);
  for (const part of drawn) {
    const w = Math.max(part.w, minimumWidth);
    const left = Math.min(part.x, width - w);
    const rect = h("svg:rect", {
      x: left.toFixed(2), y: barTop, width: w.toFixed(2), height: barHeight,
      class: part.state === null ? "tl-unknown" : part.state ? "tl-online" : "tl-offline",
      fill: part.state === null ? `url(#hatch-${window})` : null,
    });
    const why = part.state === null ? "" : ` (${presenceText(part.state, part.reason)})`;
    rect.append(h("svg:title", {}, `${stateName(part.state)} ${full.format(part.from)} – ${full.format(part.to)}${why}`));
    svg.append(rect);
  }
  for (const transition of transitions) {
    const at = Date.parse(transition.at);
    if (at < start || at > now) continue;
    const tick = h("svg:line", { x1: x(at).toFixed(2), x2: x(at).toFixed(2), y1: barTop - 4, y2: barTop + barHeight + 2, class: transition.online ? "tl-tick up" : "tl-tick down" });
    tick.append(h("svg:title", {}, `${full.format(at)}: ${presenceText(transition.online, transition.reason)}`));
    svg.append(tick);
  }
  // Axis labels are HTML under the drawing: text in an SVG stretched to the width would be stretched too.
  const axis = h("div", { class: "timeline-axis", "aria-hidden": "true" });
  for (let time = Math.ceil(start / tickEvery) * tickEvery; time <= now; time += tickEvery) {
    svg.append(h("svg:line", { x1: x(time).toFixed(2), x2: x(time).toFixed(2), y1: barTop + barHeight, y2: barTop + barHeight + 6, class: "tl-axis" }));
    const label = h("span", {}, tickEvery >= 86_400_000 ? day.format(time) : clock.format(time));
    label.style.left = `${((x(time) / width) * 100).toFixed(2)}%`; // CSSOM, which the CSP allows (a style attribute it would not)
    axis.append(label);
  }
  const share = uptime(parts);
  const shareText = share === null ? "not seen in this window" : `online ${Math.round(share * 100)} % of the time known`;
  const recent = transitions.filter((transition) => Date.parse(transition.at) >= start);
  return h("figure", { class: "timeline-figure" },
    h("figcaption", {}, h("strong", {}, title), ` — ${shareText}, ${recent.length} transition${recent.length === 1 ? "" : "s"}`),
    h("div", { class: "timeline-frame" }, svg, axis),
    h("p", { class: "legend" },
      h("span", { class: "key online" }), "online ", h("span", { class: "key offline" }), "offline ",
      h("span", { class: "key unknown" }), "not known yet ", h("span", { class: "key tick" }), "transition (hover for its reason)"));
}
