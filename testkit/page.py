"""The live page (Sources/PeerscanWeb/Page) as its end-to-end tests read it: a ``Browser`` (testkit/browser.py) on a
peerscan-web, the Devices screen's rows read from the DOM, the sequence the page shows (``data-sequence="E:N"`` on the
document's root, set by stream.js), and a marker that a reload would lose.

The Devices list is windowed (windowed.js): only the rows in view and a screen around are elements, each with its
place in the list (``aria-posinset``) and the list's length (``aria-setsize``). ``Page.rows`` reads them as
``ShownRows``, which agrees with a snapshot when the list's length is the snapshot's device count and each row is the
snapshot's device at its place (at the test LAN's few devices, every row is an element).

    page = Page(browser, "http://127.0.0.1:8737", token=TOKEN)
    page.open("/")
    page.mark()                      # window.__marker = 1, and a record of every data-sequence the page sets
    ... changes ...
    page.wait_equal(lambda: control.GetSnapshot())
    assert page.marked() and page.changesets() >= 200
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from testkit.browser import Browser
from testkit.waiting import wait_until

__all__ = ["Page", "ShownRows", "expected_rows", "shown_name"]

# Each Devices row that is an element (a row fading out carries `leaving`): its place, its id and its name's text, in
# order; and the sequence shown, read in the same turn of the page's event loop so the two agree.
_READ_ROWS = """
const rows = [...document.querySelectorAll("ul.devices > li[data-id]:not(.leaving)")];
return {sequence: document.documentElement.dataset.sequence ?? null,
        sizes: [...new Set(rows.map((row) => Number(row.getAttribute("aria-setsize"))))],
        rows: rows.map((row) => [Number(row.getAttribute("aria-posinset")), row.dataset.id,
                                 row.querySelector(".name").textContent])};
"""
# Installed once the page has loaded: the marker, and every value data-sequence takes from then on.
_MARK = """
window.__marker = 1;
window.__sequences = [document.documentElement.dataset.sequence ?? null];
new MutationObserver((records) => {
  // Each record's value is the next one's old value (the last one's is the current value).
  records.forEach((record, index) => window.__sequences.push(
    index + 1 < records.length ? records[index + 1].oldValue : record.target.dataset.sequence));
}).observe(document.documentElement, {attributes: true, attributeOldValue: true, attributeFilter: ["data-sequence"]});
"""


def shown_name(item: dict) -> str:
    """The name a Devices row shows for an item (text.js's deviceName)."""
    bluetooth = item.get("bluetooth") or {}
    for candidate in (item.get("displayName"), *(item.get("macAddresses") or [])[:1], bluetooth.get("name"),
                      bluetooth.get("address"), item.get("hostName")):
        if candidate is not None:
            return candidate
    return item["id"]


@dataclass(frozen=True)
class ShownRows:
    """The Devices rows that are elements: ``places`` (1-based, as ``aria-posinset``), ``rows`` ((id, name) each) and
    ``sizes`` (the ``aria-setsize`` values they carry: one, the list's length, when the window is sound)."""

    places: list[int]
    rows: list[tuple[str, str]]
    sizes: list[int]

    @property
    def ids(self) -> list[str]:
        return [row_id for row_id, _ in self.rows]

    def agrees(self, expected: list[tuple[str, str]]) -> bool:
        """Whether these rows are ``expected``'s (``expected_rows``) at their places, one run of them, of a list as
        long as ``expected`` (no row when it is empty)."""
        if not self.rows:
            return not expected
        first = self.places[0]
        return (self.sizes == [len(expected)] and self.places == list(range(first, first + len(self.rows)))
                and self.rows == expected[first - 1:first - 1 + len(self.rows)])


def expected_rows(snapshot: dict) -> list[tuple[str, str]]:
    """(id, shown name) of each peer item of the networks section, in the snapshot's order."""
    return [(item["id"], shown_name(item))
            for section in snapshot["sections"] if section["id"] == "networks"
            for item in section["items"] if item["kind"] == "peer"]


class Page:
    """The page in a browser. ``token``: put in the address's fragment (``#token=…``) as ``peerscanctl web-url``
    does; None opens the page without one."""

    def __init__(self, browser: Browser, origin: str, token: str | None = None) -> None:
        self.browser, self.origin, self.token = browser, origin, token
        self.driver = browser.driver

    def open(self, path: str = "/") -> None:
        """Loads `path` (anew: never a same-document navigation to a fragment) and waits until the page shows a
        sequence (its first snapshot arrived)."""
        self.driver.get("about:blank")
        self.driver.get(self.origin + path + (f"#token={self.token}" if self.token else ""))
        wait_until(lambda: self.sequence() is not None, timeout=30, what=f"the page at {path} live")

    def mark(self) -> None:
        self.driver.execute_script(_MARK)

    def marked(self) -> bool:
        """Whether the page is the one ``mark()`` marked (not loaded again since)."""
        return self.driver.execute_script("return window.__marker === 1;")

    def sequence(self) -> tuple[str, int] | None:
        """(epoch, sequence) the page shows, or None before its first snapshot."""
        value = self.driver.execute_script("return document.documentElement.dataset.sequence ?? null;")
        if value is None:
            return None
        epoch, _, sequence = value.rpartition(":")
        return epoch, int(sequence)

    def sequences(self) -> list[tuple[str, int]]:
        """Every (epoch, sequence) the page showed since ``mark()``, in order."""
        values = self.driver.execute_script("return window.__sequences;")
        return [(value.rpartition(":")[0], int(value.rpartition(":")[2])) for value in values if value]

    def changesets(self, shown: list[tuple[str, int]] | None = None) -> int:
        """How many changesets the page applied since ``mark()``: the steps N → N+1 within an epoch of ``shown``
        (``sequences()``, read now if not given)."""
        shown = self.sequences() if shown is None else shown
        steps = zip(shown, shown[1:], strict=False)
        return sum(1 for before, after in steps if after[0] == before[0] and after[1] == before[1] + 1)

    def rows(self) -> tuple[tuple[str, int] | None, ShownRows]:
        """(the sequence shown, the Devices rows that are elements), read at one instant."""
        read = self.driver.execute_script(_READ_ROWS)
        sequence = read["sequence"]
        shown = (sequence.rpartition(":")[0], int(sequence.rpartition(":")[2])) if sequence else None
        return shown, ShownRows([place for place, _, _ in read["rows"]],
                                [(row_id, name) for _, row_id, name in read["rows"]], read["sizes"])

    def wait_equal(self, get_snapshot: Callable[[], dict], timeout: float = 60) -> dict:
        """Waits until the Devices rows equal GetSnapshot's devices at the sequence GetSnapshot answered; returns
        that reply. `get_snapshot` is GetSnapshot (``{"epoch", "sequence", "snapshot"}``)."""
        last: dict = {}

        def equal() -> bool:
            reply = get_snapshot()
            shown, rows = self.rows()
            last.update(reply=reply, shown=shown, rows=rows)
            return shown == (reply["epoch"], reply["sequence"]) and rows.agrees(expected_rows(reply["snapshot"]))

        wait_until(equal, timeout=timeout, interval=0.3, what="the page's rows equal GetSnapshot's devices",
                   details=lambda: (f"page at {last.get('shown')}: {last.get('rows')}\nGetSnapshot at "
                                    f"{last['reply']['sequence']}: {expected_rows(last['reply']['snapshot'])}"))
        return last["reply"]

    def wait_text(self, selector: str, contained: str, timeout: float = 20) -> None:
        """Waits until the element's text (textContent) holds `contained`."""
        def holds() -> bool:
            return self.driver.execute_script(
                "return [...document.querySelectorAll(arguments[0])].some((e) => e.textContent.includes(arguments[1]))",
                selector, contained)

        wait_until(holds, timeout=timeout, what=f"{contained!r} in {selector}")
