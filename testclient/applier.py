"""An independent replayer of peerscan changesets, written from docs/protocol.md's description only.

A snapshot is ``{"sections": [{"id": ..., "items": [...]}, ...]}``; a changeset is the JSON object documented in
docs/protocol.md ("Changesets"). ``apply(snapshot, changes)`` returns the new snapshot and checks every identifier the
changeset names, raising ``ChangesetMismatch`` when it does not fit (as Swift's ``Snapshot.applying(_:)`` and the page's
applier.js do: Tests/Vectors/changesets.json holds the three to one answer, Tests/Page/test_changeset_vectors.py).
"""

from __future__ import annotations

import copy


class ChangesetMismatch(AssertionError):
    pass


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ChangesetMismatch(message)


def _check_once(positions: list, what: str) -> None:
    """No position is named twice (two removals of one element, two insertions at one place)."""
    seen = set()
    for position in positions:
        _check(position not in seen, f"{what} {list(position) if isinstance(position, tuple) else position} twice")
        seen.add(position)


def _is_index(value: object, count: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < count


def apply(snapshot: dict, changes: dict) -> dict:
    sections = [[s["id"], list(s["items"])] for s in copy.deepcopy(snapshot)["sections"]]

    # 1. Remove deleted and moved-away items by old index path (highest first); keep the moved ones.
    moved_items = {}
    removals = []
    for delete in changes.get("itemDeletes", []):
        removals.append((tuple(delete["from"]), delete["id"], None))
    for number, move in enumerate(changes.get("itemMoves", [])):
        removals.append((tuple(move["from"]), move["id"], number))
    _check_once([removal[0] for removal in removals], "item removed from")
    for (section, index), item_id, move_number in sorted(removals, key=lambda r: r[0], reverse=True):
        _check(_is_index(section, len(sections)) and _is_index(index, len(sections[section][1])),
               f"no item at {[section, index]}")
        item = sections[section][1].pop(index)
        _check(item["id"] == item_id, f"item at {[section, index]} is {item['id']}, not {item_id}")
        if move_number is not None:
            moved_items[move_number] = item

    # 2. Remove deleted and moved-away sections by old index (highest first); keep the moved ones.
    moved_sections = {}
    section_removals = [(d["from"], d["id"], None) for d in changes.get("sectionDeletes", [])]
    section_removals += [(m["from"], m["id"], n) for n, m in enumerate(changes.get("sectionMoves", []))]
    _check_once([removal[0] for removal in section_removals], "section removed from")
    for index, section_id, move_number in sorted(section_removals, key=lambda r: r[0], reverse=True):
        _check(_is_index(index, len(sections)), f"no section at {index}")
        removed = sections.pop(index)
        _check(removed[0] == section_id, f"section at {index} is {removed[0]}, not {section_id}")
        if move_number is None:
            _check(not removed[1], f"deleted section {section_id} still holds items")
        else:
            moved_sections[move_number] = removed

    # 3. Insert new (empty) and moved sections in increasing order of new index.
    insertions = [(i["at"], [i["id"], []]) for i in changes.get("sectionInserts", [])]
    insertions += [(m["to"], moved_sections[n]) for n, m in enumerate(changes.get("sectionMoves", []))]
    _check_once([insertion[0] for insertion in insertions], "section inserted at")
    for index, section in sorted(insertions, key=lambda pair: pair[0]):
        _check(_is_index(index, len(sections) + 1), f"section inserted at {index} beyond the end")
        sections.insert(index, section)
    for reload in changes.get("sectionReloads", []):
        _check(_is_index(reload["at"], len(sections)) and sections[reload["at"]][0] == reload["id"],
               f"section {reload['id']} reloaded at {reload['at']}")

    # 4. Insert new and moved items in increasing order of new index path.
    item_insertions = [(tuple(i["at"]), i["item"]) for i in changes.get("itemInserts", [])]
    item_insertions += [(tuple(m["to"]), moved_items[n]) for n, m in enumerate(changes.get("itemMoves", []))]
    _check_once([insertion[0] for insertion in item_insertions], "item inserted at")
    for (section, index), item in sorted(item_insertions, key=lambda pair: pair[0]):
        _check(_is_index(section, len(sections)) and _is_index(index, len(sections[section][1]) + 1),
               f"item inserted at {[section, index]}")
        sections[section][1].insert(index, item)

    # 5. Replace updated items.
    for update in changes.get("itemUpdates", []):
        section, index = update["at"]
        _check(_is_index(section, len(sections)) and _is_index(index, len(sections[section][1])),
               f"no item to update at {[section, index]}")
        _check(sections[section][1][index]["id"] == update["item"]["id"],
               f"update at {[section, index]} names another item")
        sections[section][1][index] = update["item"]

    _check_once([("section", section_id) for section_id, _ in sections], "the result holds")
    _check_once([("item", item["id"]) for _, items in sections for item in items], "the result holds")
    return {"sections": [{"id": section_id, "items": items} for section_id, items in sections]}


def devices(snapshot: dict) -> dict:
    """The peer items of a snapshot, by id (the networks section also holds the Wi-Fi networks: not these)."""
    return {item["id"]: item
            for section in snapshot["sections"] if section["id"] == "networks" for item in section["items"]
            if item["kind"] == "peer"}


def wifi_networks(snapshot: dict) -> list:
    """The wifiNetwork items of a snapshot, in order."""
    return [item for section in snapshot["sections"] if section["id"] == "networks" for item in section["items"]
            if item["kind"] == "wifiNetwork"]


def wifi_interfaces(snapshot: dict) -> list:
    """The wifiInterface items of a snapshot, in order."""
    return [item for section in snapshot["sections"] if section["id"] == "config" for item in section["items"]
            if item["kind"] == "wifiInterface"]


def config_item(snapshot: dict, kind: str) -> dict:
    """The config item of a kind (``scanning`` or ``host``)."""
    return next(item for section in snapshot["sections"] if section["id"] == "config"
                for item in section["items"] if item["kind"] == kind)
