// A windowed list: the whole list is the page's, only the rows in view (and a screen above and below) are elements,
// as a collection view has cells only for the items on screen. The rest of the list is the container's padding, sized
// from the rows' measured heights — a row never shown is taken to be as high as the mean of the first rows measured,
// an estimate fixed from then on, so that measuring a row moves only the rows below it —, so the scroll bar and the
// rows' places are the whole list's. The rows in the window are a KeyedList: patched in place, animated when the list
// changes; scrolling moves the window without animation. Each row says where it stands (`aria-posinset`,
// `aria-setsize`).

import { KeyedList } from "./list.js";

/** The height a row is taken to have before any row was measured (about a one-line device row). */
const firstEstimate = 64;

/** The first index whose value is greater than `value` in the increasing `offsets`. */
function firstAbove(offsets, value) {
  let low = 0;
  let high = offsets.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (offsets[middle] <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}

export class WindowedList {
  /**
   * @param {HTMLElement} container The list element (a `ul`); its padding stands for the rows out of the window.
   * @param view As KeyedList's: `create`, `update`, and `same`.
   */
  constructor(container, view) {
    this.container = container;
    this.rows = new KeyedList(container, view);
    this.items = [];
    this.ids = new Set();
    this.heights = new Map(); // id → the height its row measured (with the gap to the next row)
    this.estimated = null; // the height of a row never measured, once rows were
    this.cachedOffsets = null; // offsets() while neither the items nor a height changed (scrolling)
    this.frame = 0;
    this.onViewportChange = () => this.scheduleRender();
    addEventListener("scroll", this.onViewportChange, { passive: true });
    addEventListener("resize", this.onViewportChange, { passive: true });
  }

  /** Shows `items` (each with a unique `id`): the window's rows are patched, and animated as KeyedList does. */
  show(items) {
    const before = this.ids;
    this.items = items;
    this.ids = new Set(items.map((item) => item.id));
    for (const id of this.heights.keys()) if (!this.ids.has(id)) this.heights.delete(id);
    this.cachedOffsets = null;
    this.render({ isNew: (id) => !before.has(id), isGone: (id) => !this.ids.has(id) });
  }

  /** The element shown for `id`, if its row is in the window. */
  element(id) {
    return this.rows.element(id);
  }

  dispose() {
    cancelAnimationFrame(this.frame);
    removeEventListener("scroll", this.onViewportChange);
    removeEventListener("resize", this.onViewportChange);
  }

  scheduleRender() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render({ animate: false });
    });
  }

  /** Each row's top in the list, and the list's height last: `items.length + 1` values. */
  offsets() {
    if (this.cachedOffsets) return this.cachedOffsets;
    const estimate = this.estimated ?? firstEstimate;
    const offsets = new Float64Array(this.items.length + 1);
    for (let index = 0; index < this.items.length; index++) {
      offsets[index + 1] = offsets[index] + (this.heights.get(this.items[index].id) ?? estimate);
    }
    this.cachedOffsets = offsets;
    return offsets;
  }

  /** The rows to make: those in view, and a screen's height of rows above and below. */
  range(offsets) {
    if (!this.container.isConnected) return { start: 0, end: Math.min(this.items.length, 50) };
    const top = -this.container.getBoundingClientRect().top;
    const margin = innerHeight;
    const start = Math.max(0, firstAbove(offsets, top - margin) - 1);
    const end = Math.min(this.items.length, Math.max(start, firstAbove(offsets, top + innerHeight + margin)));
    return { start, end };
  }

  render(options) {
    let offsets = this.offsets();
    const { start, end } = this.range(offsets);
    this.rows.show(this.items.slice(start, end), options);
    const size = String(this.items.length);
    this.rows.shown.forEach((entry, index) => {
      entry.element.setAttribute("aria-posinset", String(start + index + 1));
      entry.element.setAttribute("aria-setsize", size);
    });
    this.container.style.paddingTop = `${offsets[start]}px`;
    this.container.style.paddingBottom = `${offsets[this.items.length] - offsets[end]}px`;
    if (!this.measure()) return;
    // The rows measured other than estimated (or the first estimate made): the window may no longer cover the view.
    offsets = this.offsets();
    this.container.style.paddingTop = `${offsets[start]}px`;
    this.container.style.paddingBottom = `${offsets[this.items.length] - offsets[end]}px`;
    const next = this.range(offsets);
    if (next.start !== start || next.end !== end) this.scheduleRender();
  }

  /** Notes the heights of the rows in the window (layout positions: an animation's transform does not count). */
  measure() {
    const shown = this.rows.shown;
    if (!this.container.isConnected || shown.length === 0) return false;
    const bottom = this.container.clientHeight - parseFloat(this.container.style.paddingBottom || "0");
    let changed = false;
    shown.forEach((entry, index) => {
      const next = shown[index + 1]?.element.offsetTop ?? bottom;
      const height = next - entry.element.offsetTop;
      if (height <= 0 || this.heights.get(entry.id) === height) return;
      this.heights.set(entry.id, height);
      this.cachedOffsets = null;
      changed = true;
    });
    if (this.estimated === null && changed) {
      this.estimated = shown.reduce((total, entry) => total + (this.heights.get(entry.id) ?? 0), 0) / shown.length;
    }
    return changed;
  }
}
