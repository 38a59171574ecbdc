"""Two pieces of the page that the benchmark (benchmarks/web.py) made cheaper at 10,000 devices, checked for what they
must still do: the keyed list reuses the rows of items that come back (a search erased) with their content brought up
to date, and the event-stream parser splits a megabyte line arriving in a thousand chunks exactly."""

from __future__ import annotations

# Runs in the page: a KeyedList of 300 items (above the animation limit: rows go at once), filtered to 10, then all
# 300 again with item 5 changed meanwhile; hands back whether each row came back as the same element, and the texts.
KEYED_LIST = """
const [moduleURL, done] = arguments;
import(moduleURL).then(({KeyedList}) => {
  const container = document.createElement("ul");
  document.body.append(container);
  const view = {create: () => document.createElement("li"), update: (row, item) => { row.textContent = item.text; }};
  const list = new KeyedList(container, view);
  const items = Array.from({length: 300}, (_, index) => ({id: `id-${index}`, text: `item ${index}`}));
  list.show(items);
  const first = new Map([...container.children].map((row) => [row.dataset.id, row]));
  list.show(items.slice(0, 10));
  const shownWhileFiltered = container.children.length;
  const renamed = (item) => ({...item, text: `${item.text} renamed`});
  const again = items.map((item, index) => (index === 5 || index === 200 ? renamed(item) : item));
  list.show(again);
  const rows = [...container.children];
  done({shownWhileFiltered, count: rows.length,
        reused: rows.filter((row) => first.get(row.dataset.id) === row).length,
        ids: rows.map((row) => row.dataset.id), texts: rows.map((row) => row.textContent)});
}, (error) => done({error: String(error)}));
"""

# Runs in the page: an event stream whose snapshot's data line is 1 MB, cut into 1,000 chunks, with CRLF line ends
# split across chunks; hands back the events parsed.
EVENT_STREAM = """
const [moduleURL, done] = arguments;
import(moduleURL).then(({EventStreamParser}) => {
  const data = JSON.stringify({snapshot: "x".repeat(1 << 20)});
  const text = `: keepalive\\r\\n\\r\\nid: e:1\\r\\nevent: snapshot\\r\\ndata: ${data}\\r\\n\\r\\n`
    + `id: e:2\\nevent: changeset\\ndata: {"changes":{}}\\n\\n`;
  const parser = new EventStreamParser();
  const events = [];
  const size = Math.ceil(text.length / 1000);
  for (let start = 0; start < text.length; start += size) events.push(...parser.push(text.slice(start, start + size)));
  events.push(...parser.push("id: e:3\\r"), ...parser.push("\\nevent: changeset\\r"), ...parser.push("\\ndata: {}\\r"),
              ...parser.push("\\n\\r"), ...parser.push("\\n"));
  done(events.map((event) => ({id: event.id, event: event.event, same: event.data === data, length: event.data.length,
                               data: event.data.length < 100 ? event.data : null})));
}, (error) => done({error: String(error)}));
"""


def test_the_keyed_list_reuses_rows_that_come_back(run_in_page_module) -> None:
    result = run_in_page_module("list.js", KEYED_LIST)
    assert "error" not in result, result
    assert result["shownWhileFiltered"] == 10
    assert result["ids"] == [f"id-{index}" for index in range(300)]
    assert result["reused"] == 300
    assert result["texts"][5] == "item 5 renamed" and result["texts"][200] == "item 200 renamed"
    assert result["texts"][199] == "item 199"


def test_the_event_stream_parser_splits_a_long_line_in_many_chunks(run_in_page_module) -> None:
    events = run_in_page_module("sse.js", EVENT_STREAM)
    assert "error" not in events, events
    assert [(event["id"], event["event"]) for event in events] == [("e:1", "snapshot"), ("e:2", "changeset"),
                                                                   ("e:3", "changeset")]
    assert events[0]["same"] and events[0]["length"] > 1 << 20
    assert events[1]["data"] == '{"changes":{}}' and events[2]["data"] == "{}"
