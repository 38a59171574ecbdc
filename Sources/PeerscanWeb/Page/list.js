// A keyed list: one element per item id, patched in place. show(items) diffs the new list against the shown one by
// id — an item whose content changed has its element updated, new ones are inserted, gone ones removed, and only the
// elements off the longest run already in order are moved — then animates (FLIP with the Web Animations API: First
// positions, Last positions, Invert, Play), unless the person asked for reduced motion.

const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");
const duration = 220;
/** Beyond this many elements to animate, the list changes at once (a resync of thousands must not stutter). */
const animationLimit = 150;
/** At most this many elements of items no longer shown are kept for their return (a search erased, a row scrolled
 * back into view): the oldest go. */
const spareLimit = 1_000;

/**
 * The indices of a longest strictly increasing subsequence of `values` (values < 0 are skipped).
 * O(n log n).
 */
export function longestIncreasingRun(values) {
  const tails = [];
  const previous = new Array(values.length).fill(-1);
  for (let index = 0; index < values.length; index++) {
    if (values[index] < 0) continue;
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (values[tails[middle]] < values[index]) low = middle + 1;
      else high = middle;
    }
    if (low > 0) previous[index] = tails[low - 1];
    tails[low] = index;
  }
  const run = new Set();
  for (let index = tails.at(-1) ?? -1; index >= 0; index = previous[index]) run.add(index);
  return run;
}

export class KeyedList {
  /**
   * @param {HTMLElement} container The element whose children are the items' elements.
   * @param {{create: (item) => HTMLElement, update: (element, item) => void, same?: (a, b) => boolean}} view
   *   `create` makes an element (with `data-id`), `update` fills it with an item's content (also right after create).
   */
  constructor(container, view) {
    this.container = container;
    this.view = view;
    this.shown = []; // [{id, item, element}] in order
    this.spare = new Map(); // id → {id, item, element}: removed at once (not animated), reused if the id comes back
  }

  /** Whether two payloads of one id show the same: the applier keeps unchanged items' objects. */
  same(a, b) {
    return a === b || (this.view.same ? this.view.same(a, b) : JSON.stringify(a) === JSON.stringify(b));
  }

  /**
   * Shows `items` (each with a unique `id`), patching what is shown.
   * @param {{animate?: boolean, isNew?: (id) => boolean, isGone?: (id) => boolean}} options `animate: false` changes
   *   at once; otherwise an element that comes fades in only if `isNew` (default: every one not shown before) and one
   *   that goes fades out only if `isGone` (default: every one) — a windowed list's rows that only enter or leave
   *   the window come and go at once.
   */
  show(items, { animate: wanted = true, isNew = () => true, isGone = () => true } = {}) {
    const animate = wanted && !reducedMotion.matches && this.container.isConnected && this.shown.length > 0;
    const before = new Map(); // id → index in `shown` (no copy of each entry: this runs at every change)
    this.shown.forEach((entry, index) => before.set(entry.id, index));
    const first = new Map();
    if (animate && this.shown.length <= animationLimit) {
      for (const entry of this.shown) first.set(entry.id, entry.element.getBoundingClientRect());
    }

    const next = items.map((item) => {
      const oldIndex = before.get(item.id);
      if (oldIndex === undefined) {
        const spare = this.spare.get(item.id);
        if (spare) {
          this.spare.delete(item.id);
          if (!this.same(spare.item, item)) this.view.update(spare.element, item, spare.item);
          return { id: item.id, item, element: spare.element, isNew: true, oldIndex: -1 };
        }
        const element = this.view.create(item);
        element.dataset.id = item.id;
        this.view.update(element, item, null);
        return { id: item.id, item, element, isNew: true, oldIndex: -1 };
      }
      const old = this.shown[oldIndex];
      if (!this.same(old.item, item)) this.view.update(old.element, item, old.item);
      return { id: item.id, item, element: old.element, isNew: false, oldIndex };
    });
    const kept = new Set(next.map((entry) => entry.id));
    const leaving = this.shown.filter((entry) => !kept.has(entry.id));

    for (const entry of leaving) {
      const rect = isGone(entry.id) ? first.get(entry.id) : undefined;
      this.leave(entry.element, rect);
      if (!rect || reducedMotion.matches) this.keepSpare(entry); // removed at once, not fading: it may come back
    }
    const stay = longestIncreasingRun(next.map((entry) => entry.oldIndex));
    for (let index = next.length - 1; index >= 0; index--) {
      if (stay.has(index)) continue;
      const reference = next[index + 1]?.element ?? null;
      this.container.insertBefore(next[index].element, reference);
    }
    this.shown = next;

    if (!animate || first.size === 0 || next.length > animationLimit) return;
    for (const entry of next) {
      if (entry.isNew) {
        if (!isNew(entry.id)) continue;
        entry.element.animate(
          [{ opacity: 0, transform: "scale(0.97)" }, { opacity: 1, transform: "none" }],
          { duration, easing: "ease-out" },
        );
        continue;
      }
      const from = first.get(entry.id);
      if (!from) continue;
      const to = entry.element.getBoundingClientRect();
      const dx = from.left - to.left;
      const dy = from.top - to.top;
      if (Math.abs(dx) < 0.5 && Math.abs(dy) < 0.5) continue;
      entry.element.animate(
        [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }],
        { duration, easing: "ease-in-out" },
      );
    }
  }

  keepSpare(entry) {
    this.spare.set(entry.id, entry);
    if (this.spare.size > spareLimit) this.spare.delete(this.spare.keys().next().value);
  }

  /** Removes an element, fading it out where it stood (taken out of the flow so the others can close up). */
  leave(element, rect) {
    if (!rect || reducedMotion.matches) {
      element.remove();
      return;
    }
    const box = this.container.getBoundingClientRect();
    element.classList.add("leaving");
    element.inert = true;
    element.style.top = `${rect.top - box.top + this.container.scrollTop}px`;
    element.style.left = `${rect.left - box.left}px`;
    element.style.width = `${rect.width}px`;
    const animation = element.animate([{ opacity: 1 }, { opacity: 0 }], { duration, easing: "ease-in" });
    animation.finished.then(() => element.remove(), () => element.remove());
  }

  /** The element shown for `id`, if any. */
  element(id) {
    return this.shown.find((entry) => entry.id === id)?.element ?? null;
  }
}
