"""The shared changeset vectors (Tests/Vectors/changesets.json, made by Swift's differ: see
Tests/PeerScanModelTests/ChangesetVectorCatalogue.swift) against the Python applier (testclient/applier.py) and the
page's (Sources/PeerscanWeb/Page/applier.js, in headless Chromium). ChangesetVectorTests holds Swift's
`Snapshot.applying(_:)` to the same file, so the three appliers give one answer: each vector's `after`, or a
rejection for a malformed changeset (`"error": true`).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from testclient.applier import ChangesetMismatch, apply
from testkit.browser import serve_directory

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "Sources" / "PeerscanWeb" / "Page"
VECTORS = json.loads((ROOT / "Tests" / "Vectors" / "changesets.json").read_text(encoding="utf-8"))

# Runs in the page: imports the applier, applies every vector, hands back each result or the error's message (and
# whether the argument was mutated).
APPLY_ALL = """
const [moduleURL, vectors, done] = arguments;
import(moduleURL).then(({applyChanges, ApplyError, changedItemIDs}) => {
  done(vectors.map((vector) => {
    const before = JSON.stringify(vector.before);
    const mutated = () => JSON.stringify(vector.before) !== before;
    try {
      const snapshot = applyChanges(vector.before, vector.changes);
      const changed = Object.fromEntries(Object.entries(changedItemIDs(vector.changes)).map(
        ([kind, ids]) => [kind, [...ids].sort()]));
      return {snapshot, changed, mutated: mutated()};
    } catch (error) {
      const message = error instanceof ApplyError ? error.message : `not an ApplyError: ${error}`;
      return {error: message, wrongType: !(error instanceof ApplyError), mutated: mutated()};
    }
  }));
}, (error) => done({importError: String(error)}));
"""


def changed_item_ids(changes: dict) -> dict:
    """What applier.js's changedItemIDs should report, written from the changeset's fields."""
    return {
        "inserted": sorted({insert["item"]["id"] for insert in changes.get("itemInserts", [])}),
        "deleted": sorted({delete["id"] for delete in changes.get("itemDeletes", [])}),
        "moved": sorted({move["id"] for move in changes.get("itemMoves", [])}),
        "updated": sorted({update["item"]["id"] for update in changes.get("itemUpdates", [])}),
    }


@pytest.mark.parametrize("vector", VECTORS, ids=[vector["name"] for vector in VECTORS])
def test_python_applier(vector: dict) -> None:
    before = copy.deepcopy(vector["before"])
    if vector.get("error"):
        with pytest.raises(ChangesetMismatch):
            apply(vector["before"], vector["changes"])
    else:
        assert apply(vector["before"], vector["changes"]) == vector["after"]
    assert vector["before"] == before, "the applier changed its argument"


def test_vectors_cover_the_cases() -> None:
    names = [vector["name"] for vector in VECTORS]
    assert len(set(names)) == len(names)
    assert sum(name.startswith("random ") for name in names) >= 50
    assert sum(bool(vector.get("error")) for vector in VECTORS) >= 10
    kinds = {kind for vector in VECTORS if not vector.get("error") for kind in vector["changes"]}
    assert kinds >= {"itemDeletes", "itemInserts", "itemMoves", "itemUpdates", "sectionDeletes", "sectionInserts",
                     "sectionMoves"}


def test_javascript_applier(loopback: Path, make_browser) -> None:
    """One browser applies every vector (about 2 s with the browser's start)."""
    with serve_directory(loopback, PAGE) as url:
        browser = make_browser(loopback)
        browser.driver.set_script_timeout(60)
        browser.driver.get(f"{url}/applier.js")  # a document of the server's origin, to import the module from
        results = browser.driver.execute_async_script(APPLY_ALL, f"{url}/applier.js", VECTORS)
    assert isinstance(results, list), results
    failures = []
    for vector, result in zip(VECTORS, results, strict=True):
        if result["mutated"]:
            failures.append(f"{vector['name']}: applyChanges changed its argument")
        if vector.get("error"):
            if "error" not in result or result["wrongType"]:
                failures.append(f"{vector['name']}: accepted a malformed changeset, or threw another error: {result}")
        elif "error" in result:
            failures.append(f"{vector['name']}: rejected: {result['error']}")
        else:
            if result["snapshot"] != vector["after"]:
                failures.append(f"{vector['name']}: gave {json.dumps(result['snapshot'])[:2000]}")
            if result["changed"] != changed_item_ids(vector["changes"]):
                failures.append(f"{vector['name']}: changedItemIDs gave {result['changed']}")
    assert not failures, "\n".join(failures)
    assert browser.csp_violations() == []
