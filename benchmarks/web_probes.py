"""The scripts benchmarks/web.py installs in the page under test: the navigation's probe (before the page's own
scripts, through CDP) and the live one (once the list is drawn: keystrokes and renamed rows). Each records times with
the browser's clocks in ``window.__bench``."""

__all__ = ["LIVE_PROBE", "NAVIGATION_PROBE"]

# Installed before the page's scripts: marks when the Devices list's rows first say it holds `expected` devices (only
# the rows in view are elements: windowed.js), and the drawn frame.
NAVIGATION_PROBE = """
window.__bench = {expected: %d, longTasks: []};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__bench.longTasks.push([entry.startTime, entry.duration]);
}).observe({type: "longtask"});
new MutationObserver((mutations, observer) => {
  const row = document.querySelector("ul.devices > [data-id]");
  if (row?.getAttribute("aria-setsize") !== String(window.__bench.expected)) return;
  observer.disconnect();
  window.__bench.rows = performance.now();
  requestAnimationFrame(() => setTimeout(() => { window.__bench.drawn = performance.now(); }));
}).observe(document, {childList: true, subtree: true});
"""

# Installed once the list is drawn: keystroke → drawn, and row renamed → mutation (and next frame).
LIVE_PROBE = """
const bench = window.__bench;
bench.keys = []; bench.renames = [];
const search = document.getElementById("device-search");
let pending = null;
search.addEventListener("keydown", (event) => { pending = {key: event.key, start: event.timeStamp}; });
search.addEventListener("input", () => {
  const key = pending; pending = null;
  if (!key) return;
  key.handled = performance.now();
  requestAnimationFrame(() => setTimeout(() => {
    key.drawn = performance.now();
    const row = document.querySelector("ul.devices > [data-id]:not(.leaving)");
    key.rows = Number(row?.getAttribute("aria-setsize") ?? 0);
    bench.keys.push(key);
  }));
});
const seen = new Set();
const pattern = / · t=(\\d+\\.\\d+)$/;
new MutationObserver((mutations) => {
  const now = performance.timeOrigin + performance.now();
  for (const mutation of mutations) {
    const element = mutation.target.nodeType === 1 ? mutation.target : mutation.target.parentElement;
    const name = element?.closest("[data-id]")?.querySelector(".name")?.textContent ?? "";
    const match = pattern.exec(name);
    if (!match || seen.has(match[1])) continue;
    seen.add(match[1]);
    const entry = {sent: Number(match[1]), changed: now};
    bench.renames.push(entry);
    requestAnimationFrame(() => setTimeout(() => { entry.drawn = performance.timeOrigin + performance.now(); }));
  }
}).observe(document.querySelector("ul.devices"), {childList: true, subtree: true, characterData: true});
"""
