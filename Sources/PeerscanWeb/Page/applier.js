// The page's changeset applier, written from docs/protocol.md ("Changesets: the index semantics"), like
// testclient/applier.py; no DOM. Tests/Vectors/changesets.json holds it, the Python one and Swift's
// `Snapshot.applying(_:)` to one answer (Tests/Page/test_changeset_vectors.py).
//
// Exports:
// - applyChanges(snapshot, changes) → the new snapshot, in the wire's shape ({sections: [{id, items: [...]}]}).
//   The argument is not mutated; the result shares the item objects of the argument and of the changes (treat
//   them as read-only). Every id and position the changeset names is checked, as Swift checks them: one that
//   disagrees throws an ApplyError and nothing is changed. O(n + c log c) for n items and c changes.
// - changedItemIDs(changes) → {inserted, deleted, moved, updated}: Sets of item ids, for the screens to animate
//   (an item both moved and updated is in both sets).
// - ApplyError: `code` (Swift's ChangesetError codes: "positionOutOfRange", "identifierMismatch",
//   "positionConflict", "sectionNotEmpty", "duplicateIdentifier") and a message naming the change.

export class ApplyError extends Error {
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.name = "ApplyError";
    this.code = code;
  }
}

const fail = (code, message) => {
  throw new ApplyError(code, message);
};
const isIndex = (value, count) => Number.isInteger(value) && value >= 0 && value < count;
const path = (p) => `[${p}]`;

// `kept` with each insertion at its final index, in increasing order of index (a taken or unreachable index fails).
function placeAll(insertions, kept, describe) {
  const sorted = [...insertions].sort((a, b) => a.at - b.at);
  const result = [];
  let next = 0;
  for (const { at, element } of sorted) {
    if (!Number.isInteger(at) || at < 0) fail("positionOutOfRange", `${describe(at)} is not an index`);
    if (at < result.length) fail("positionConflict", `${describe(at)} twice`);
    if (at - result.length > kept.length - next) fail("positionOutOfRange", `${describe(at)} leaves a gap`);
    while (result.length < at) result.push(kept[next++]);
    result.push(element);
  }
  return result.concat(kept.slice(next));
}

// `elements` without those at `indices` (each at most once).
function removeAll(indices, elements, describe) {
  const removed = new Set();
  for (const index of indices) {
    if (removed.has(index)) fail("positionConflict", `${describe(index)} removed twice`);
    removed.add(index);
  }
  return elements.filter((_, index) => !removed.has(index));
}

export function applyChanges(snapshot, changes) {
  const list = (key) => changes[key] ?? [];
  const old = snapshot.sections;

  // 1. Remove deleted and moved-away items, by old index path; keep the moved ones.
  const removals = old.map(() => []);
  const takeOld = (id, from) => {
    const [s, i] = Array.isArray(from) ? from : [];
    if (!isIndex(s, old.length) || !isIndex(i, old[s].items.length)) {
      fail("positionOutOfRange", `item ${id} from ${path(from)}`);
    }
    const item = old[s].items[i];
    if (item.id !== id) fail("identifierMismatch", `item ${id} from ${path(from)} holds ${item.id}`);
    removals[s].push(i);
    return item;
  };
  for (const d of list("itemDeletes")) takeOld(d.id, d.from);
  const movedItems = list("itemMoves").map((m) => takeOld(m.id, m.from));
  let sections = old.map((section, s) => ({
    id: section.id,
    items: removeAll(removals[s], section.items, (i) => `item ${path([s, i])}`),
  }));

  // 2. Remove deleted and moved-away sections, by old index; keep the moved ones with their items.
  const sectionRemovals = [];
  const takeSection = (id, from) => {
    if (!isIndex(from, sections.length)) fail("positionOutOfRange", `section ${id} from ${from}`);
    if (sections[from].id !== id) fail("identifierMismatch", `section ${id} from ${from} holds ${sections[from].id}`);
    sectionRemovals.push(from);
    return sections[from];
  };
  for (const d of list("sectionDeletes")) {
    if (takeSection(d.id, d.from).items.length > 0) {
      fail("sectionNotEmpty", `section ${d.id} deleted with items left in it`);
    }
  }
  const movedSections = list("sectionMoves").map((m) => takeSection(m.id, m.from));
  sections = removeAll(sectionRemovals, sections, (s) => `section ${s}`);

  // 3. Insert new (empty) and moved sections, by new index; check the reloads' ids against the result.
  const sectionInsertions = list("sectionInserts").map((i) => ({ at: i.at, element: { id: i.id, items: [] } }));
  list("sectionMoves").forEach((m, n) => sectionInsertions.push({ at: m.to, element: movedSections[n] }));
  sections = placeAll(sectionInsertions, sections, (s) => `section inserted at ${s}`);
  for (const r of list("sectionReloads")) {
    if (!isIndex(r.at, sections.length)) fail("positionOutOfRange", `section ${r.id} reloaded at ${r.at}`);
    if (sections[r.at].id !== r.id) fail("identifierMismatch", `section ${r.id} reloaded at ${r.at}`);
  }

  // 4. Insert new and moved items, by new index path.
  const itemInsertions = sections.map(() => []);
  const put = (element, at) => {
    const [s, i] = Array.isArray(at) ? at : [];
    if (!isIndex(s, sections.length)) fail("positionOutOfRange", `item ${element.id} to ${path(at)}`);
    itemInsertions[s].push({ at: i, element });
  };
  for (const i of list("itemInserts")) put(i.item, i.at);
  list("itemMoves").forEach((m, n) => put(movedItems[n], m.to));
  sections = sections.map((section, s) =>
    itemInsertions[s].length === 0
      ? section
      : {
          id: section.id,
          items: placeAll(itemInsertions[s], section.items, (i) => `item inserted at ${path([s, i])}`),
        },
  );

  // 5. Replace updated items.
  for (const u of list("itemUpdates")) {
    const [s, i] = Array.isArray(u.at) ? u.at : [];
    if (!isIndex(s, sections.length) || !isIndex(i, sections[s].items.length)) {
      fail("positionOutOfRange", `item ${u.item.id} updated at ${path(u.at)}`);
    }
    const current = sections[s].items[i].id;
    if (current !== u.item.id) {
      fail("identifierMismatch", `item ${u.item.id} updated at ${path(u.at)} holds ${current}`);
    }
    sections[s].items[i] = u.item; // every items array here is new: removeAll and placeAll copy
  }

  const seen = new Set();
  const keys = sections.flatMap((s) => [`section ${s.id}`, ...s.items.map((item) => `item ${item.id}`)]);
  for (const key of keys) {
    if (seen.has(key)) fail("duplicateIdentifier", `the result would hold ${key} twice`);
    seen.add(key);
  }
  return { sections };
}

export function changedItemIDs(changes) {
  const ids = (key, pick) => new Set((changes[key] ?? []).map(pick));
  return {
    inserted: ids("itemInserts", (i) => i.item.id),
    deleted: ids("itemDeletes", (d) => d.id),
    moved: ids("itemMoves", (m) => m.id),
    updated: ids("itemUpdates", (u) => u.item.id),
  };
}
