"""The windowed list (windowed.js) that the Devices, Wi-Fi and Bluetooth screens show: of 10,000 rows of unequal
heights only those in view and a screen around are elements, and wherever the page is scrolled they are the list's
rows at their places — each saying where it stands — and they cover the view."""

from __future__ import annotations

# Runs in the page: a WindowedList of 10,000 items (every seventh row 150 px high, the others 40), scrolled to the
# middle and to the end, filtered to ten, given back all with one renamed and one inserted; after each step (two
# frames later: the window follows the scroll in the next frame) a record of the rows that are elements.
WINDOWED_LIST = """
const [moduleURL, done] = arguments;
const frames = (count) => new Promise((resolve) => {
  const step = (left) => (left ? requestAnimationFrame(() => step(left - 1)) : setTimeout(resolve, 0));
  step(count);
});
import(moduleURL).then(async ({WindowedList}) => {
  document.body.replaceChildren();  // the module's text, shown as the document
  document.body.style.margin = "0";
  const style = Object.assign(document.createElement("style"), {textContent: "li.leaving {position: absolute}"});
  document.head.append(style);
  const container = document.createElement("ul");
  container.style.cssText = "position: relative; margin: 0; padding: 0; list-style: none";
  document.body.append(container);
  const view = {
    create: () => document.createElement("li"),
    update: (row, item) => { row.textContent = item.text; row.style.height = `${item.height}px`; },
  };
  const list = new WindowedList(container, view);
  const all = Array.from({length: 10000}, (_, index) => ({id: `id-${index}`, text: `item ${index}`,
                                                          height: index % 7 === 0 ? 150 : 40}));
  const record = (step) => {
    const rows = [...container.children].filter((row) => !row.classList.contains("leaving"));
    const boxes = rows.map((row) => row.getBoundingClientRect());
    return {step, count: rows.length, ids: rows.map((row) => row.dataset.id), texts: rows.map((row) => row.textContent),
            positions: rows.map((row) => Number(row.getAttribute("aria-posinset"))),
            sizes: [...new Set(rows.map((row) => Number(row.getAttribute("aria-setsize"))))],
            top: boxes[0]?.top ?? null, bottom: boxes.at(-1)?.bottom ?? null, view: innerHeight,
            scrollHeight: document.documentElement.scrollHeight};
  };
  const steps = [];
  list.show(all);
  await frames(3);
  steps.push(record("top"));
  scrollTo(0, document.documentElement.scrollHeight / 2);
  await frames(3);
  steps.push(record("middle"));
  scrollTo(0, document.documentElement.scrollHeight);
  await frames(4);
  scrollTo(0, document.documentElement.scrollHeight);
  await frames(4);
  steps.push(record("end"));
  scrollTo(0, 0);
  list.show(all.filter((_, index) => index % 1000 === 0));
  await frames(3);
  steps.push(record("filtered"));
  const again = all.map((item, index) => (index === 3 ? {...item, text: "item 3 renamed"} : item));
  again.splice(1, 0, {id: "inserted", text: "inserted", height: 40});
  list.show(again);
  await frames(3);
  steps.push(record("again"));
  list.dispose();
  done(steps);
}, (error) => done({error: String(error)}));
"""


def test_the_windowed_list_makes_only_the_rows_in_view_at_their_places(run_in_page_module) -> None:
    steps = run_in_page_module("windowed.js", WINDOWED_LIST)
    assert "error" not in steps, steps
    by_step = {step["step"]: step for step in steps}
    for name in ("top", "middle", "end", "again"):
        step = by_step[name]
        expected_size = 10_001 if name == "again" else 10_000
        assert 0 < step["count"] < 300, (name, step["count"])
        assert step["sizes"] == [expected_size], (name, step["sizes"])
        first = step["positions"][0]
        assert step["positions"] == list(range(first, first + step["count"])), name
        assert step["top"] <= 0 and step["bottom"] >= step["view"], (name, step["top"], step["bottom"], step["view"])
        if name != "again":
            assert step["ids"] == [f"id-{position - 1}" for position in step["positions"]], name
    assert by_step["top"]["positions"][0] == 1
    assert 4_000 < by_step["middle"]["positions"][0] < 6_000, by_step["middle"]["positions"][0]
    assert by_step["end"]["positions"][-1] == 10_000
    # The list's height is about the rows' (1,429 of 150 px, 8,571 of 40 px): the rows never shown are taken to be as
    # high as the mean of the first ones measured (here 5.7 % more), not the first estimate (64 px: 15 % more).
    assert abs(by_step["end"]["scrollHeight"] / (1_429 * 150 + 8_571 * 40) - 1) < 0.1, by_step["end"]["scrollHeight"]
    filtered = by_step["filtered"]
    assert filtered["ids"] == [f"id-{index}" for index in range(0, 10_000, 1000)] and filtered["sizes"] == [10]
    again = by_step["again"]
    assert again["ids"][:5] == ["id-0", "inserted", "id-1", "id-2", "id-3"]
    assert again["texts"][4] == "item 3 renamed"
