"""The live page at scale (issue 37): peerscan-web's page in headless Chromium with 10,000 devices.

Run as root from the repository's root with the venv of ``make deps`` (Selenium), after a release build of
peerscan-web (``make bench-web`` does both; ``PEERSCAN_WEB`` overrides ``.build/release/peerscan-web``)::

    .venv/bin/python -m benchmarks.web [--devices 10000] [--rate 20] [--seconds 30] [--navigations 5] [--tabs 5]
                                       [--json FILE] [--rss-only]

Everything runs in one throw-away network namespace with only loopback (``unshare --net``): peerscan-web and
Chromium (testkit/browser.py). The daemon is testkit/fakedaemon.py, serving a snapshot of ``--devices`` synthetic
devices (testkit/synthetic.py) on a Unix socket. What is measured, each in the page (the browser's clocks):

- navigation: from the navigation's start (``performance.timeOrigin``) to the list drawn — the moment a
  MutationObserver sees the Devices list's rows say the list holds ``--devices`` (``aria-setsize``: only the rows in
  view are elements, windowed.js), then the first
  ``requestAnimationFrame`` after it, then a task after that frame (``setTimeout 0``: the frame's style, layout and
  paint are done). Also the moment the list was in the DOM. ``--navigations`` fresh navigations; median and worst.
- search: one keystroke in the search field (``keydown``'s ``timeStamp``) to the filtered list drawn (the same rAF +
  task after the page's ``input`` handler); typing ``kitchen`` and then seven Backspaces back to the full list.
- changeset → DOM: the fake pushes ``--rate`` changesets a second for ``--seconds``, each renaming one named device
  (its ``displayName`` and its services' names end in `` · t=MS``, the send time in ms since the epoch; the order
  stays the snapshot's, so it is an update, made with synthetic's differ rules; one of the first ``IN_VIEW`` named
  devices, whose rows are in view); a MutationObserver in the page
  records when that row's name changed (``performance.timeOrigin + performance.now()``), and the next frame.
- assets: each asset's bytes as the page fetched them (Resource Timing's ``transferSize`` and ``encodedBodySize``),
  whether peerscan-web compressed them, and their gzip -6 size.
- the server's part: ``/api/snapshot`` (GetSnapshot's reply passed through) and ``/api/events`` to the end of its
  first event (the same snapshot as an event), each the second of two requests, timed from Python in the namespace.
- peerscan-web's RSS (``/proc/PID/status``) idle (no request yet), after those four requests, with one tab, with
  ``--tabs`` tabs each following the stream (and while changesets flow to them), and its peak (``VmHWM``).

``--rss-only`` measures peerscan-web's RSS alone, without a browser (a minute, no Selenium needed): idle, after the
four requests, with one and then ``--tabs`` clients reading ``/api/events`` from Python, after ``--seconds`` of
``--rate`` changesets a second to them, once they are gone, and after ``--tabs`` new ones connected at once and left.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import http.client
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from benchmarks.web_probes import LIVE_PROBE, NAVIGATION_PROBE
from benchmarks.web_streams import EventFollower
from testkit import synthetic
from testkit.browser import Browser, loopback_namespace
from testkit.fakedaemon import FakeDaemon
from testkit.netns import call_in
from testkit.waiting import WaitError, wait_until

ROOT = Path(__file__).resolve().parents[1]
WEB = Path(os.environ.get("PEERSCAN_WEB", ROOT / ".build" / "release" / "peerscan-web"))
PORT = 8737
# The first named devices, in view at the top of the list in a 1280 × 900 window.
IN_VIEW = 10

def _read_first_event(response: http.client.HTTPResponse) -> bytes:
    """An event stream's first event (its lines up to the empty line after its data)."""
    lines = []
    while (line := response.readline()) not in (b"", b"\n") or not any(x.startswith(b"data:") for x in lines):
        lines.append(line)
    return b"".join(lines)


def request_in(namespace: Path, path: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    """GET ``path`` from peerscan-web on the namespace's loopback; of ``/api/events``, the first event only."""

    def get() -> tuple[int, dict, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
        try:
            connection.request("GET", path, headers=headers or {})
            response = connection.getresponse()
            body = _read_first_event(response) if path == "/api/events" else response.read()
            return response.status, dict(response.getheaders()), body
        finally:
            connection.close()

    return call_in(namespace, get)


def measure_streams(web: subprocess.Popen, namespace: Path, daemon: FakeDaemon, arguments: argparse.Namespace) -> dict:
    """``--rss-only``'s part after the four requests: RSS with followers of the event stream from Python."""

    def follow(count: int) -> list[EventFollower]:
        followers = [EventFollower(namespace, PORT) for _ in range(count)]
        for follower in followers:
            if not follower.first.wait(120):
                raise WaitError("a follower's first event")
        time.sleep(1)
        return followers

    first = follow(1)
    results = {"rss_one_stream": rss_mib(web.pid)}
    followers = first + follow(arguments.tabs - 1)
    results["rss_streams"] = {"streams": arguments.tabs, **rss_mib(web.pid)}
    daemon.play(renamer(daemon.snapshot), rate=arguments.rate, count=int(arguments.rate * arguments.seconds)).join()
    time.sleep(2)
    results["rss_streaming"] = {"seconds": arguments.seconds, "events": [f.events for f in followers],
                                **rss_mib(web.pid)}
    for follower in followers:
        follower.close()
    time.sleep(2)
    results["rss_streams_gone"] = rss_mib(web.pid)
    for follower in follow(arguments.tabs):  # every tab reloaded at once
        follower.close()
    time.sleep(2)
    results["rss_reconnected_at_once"] = rss_mib(web.pid)
    return results


def report_rss_only(results: dict) -> None:
    streams = results["rss_streams"]["streams"]
    lines = [("idle", "rss_idle"), ("after 2 × /api/snapshot and 2 × /api/events (closed)", "rss_after_api"),
             ("1 stream", "rss_one_stream"), (f"{streams} streams", "rss_streams"),
             (f"{streams} streams after {results['rss_streaming']['seconds']:.0f} s of changesets", "rss_streaming"),
             ("the streams gone", "rss_streams_gone"),
             (f"{streams} new streams at once, then gone", "rss_reconnected_at_once")]
    for name, key in lines:
        print(f"RSS {name}: {results[key]['VmRSS']:.1f} MiB (peak so far {results[key]['VmHWM']:.1f} MiB)")


def rss_mib(pid: int) -> dict:
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return {key: int(fields[key].split()[0]) / 1024 for key in ("VmRSS", "VmHWM")}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def navigate(browser: Browser, url: str) -> dict:
    """One fresh navigation to the Devices screen; its timings in ms from the navigation's start."""
    browser.driver.get("about:blank")
    browser.driver.get(url)
    wait_until(lambda: browser.driver.execute_script("return !!(window.__bench && window.__bench.drawn);"),
               timeout=120, what="the device list drawn")
    with contextlib.suppress(WaitError):  # long tasks are reported a moment later, if at all
        wait_until(lambda: browser.driver.execute_script(
            "const b = window.__bench; return b.longTasks.some(([start, length]) => start <= b.rows"
            " && b.rows <= start + length);"), timeout=3, what="the rows' long task reported")
    bench = browser.driver.execute_script("return window.__bench;")
    phases = browser.driver.execute_script("""
      const resources = performance.getEntriesByType("resource");
      const events = resources.find((entry) => entry.name.includes("/api/events"));
      const assets = resources.filter((entry) => entry.name.includes("/assets/"));
      return {assets_ms: Math.max(...assets.map((entry) => entry.responseEnd)),
              dom_content_loaded_ms: performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd,
              events_request_ms: events?.startTime, events_first_byte_ms: events?.responseStart};""")
    # The task that drew the rows: the snapshot event parsed, applied and rendered (one task, from the stream's read).
    render = next(([start, length] for start, length in bench["longTasks"] if start <= bench["rows"] <= start + length),
                  [bench["rows"], 0])
    return {"rows_ms": bench["rows"], "drawn_ms": bench["drawn"], "render_task_start_ms": render[0],
            "render_task_ms": render[1], **phases}


def measure_search(browser: Browser) -> list[dict]:
    """``kitchen`` typed, then erased: each keystroke's time to the filtered list drawn."""
    field = browser.driver.find_element(By.ID, "device-search")
    keys = list("kitchen") + [Keys.BACKSPACE] * 7
    for number, key in enumerate(keys, start=1):
        field.send_keys(key)
        wait_until(lambda: len(browser.driver.execute_script("return window.__bench.keys;")) >= number,
                   timeout=60, what="the keystroke's list drawn")
        time.sleep(0.2)
    return [{"key": key["key"], "ms": key["drawn"] - key["start"], "handled_ms": key["handled"] - key["start"],
             "rows": key["rows"]} for key in browser.driver.execute_script("return window.__bench.keys;")]


def renamer(start: dict, section: int = 1, among: int | None = None):
    """``make(number)`` for FakeDaemon.play: renames a named device (a different one each time, spread over the list,
    or over its first ``among`` named devices) with the send time at the end of its name; returns the changeset and
    the snapshot it leads to."""
    state = {"snapshot": start}
    items = start["sections"][section]["items"]
    named = [index for index, item in enumerate(items) if item.get("displayName")][:among]

    def make(number: int) -> tuple[dict, dict]:
        index = named[(number * 7919) % len(named)]
        old = state["snapshot"]
        current = old["sections"][section]["items"][index]
        base = current["displayName"].split(" · t=")[0]
        name = f"{base} · t={time.time() * 1000:.3f}"
        services = [{**service, "name": name} for service in current["services"]]
        item = {**current, "displayName": name, "services": services}
        new_items = list(old["sections"][section]["items"])
        new_items[index] = item
        sections = list(old["sections"])
        sections[section] = {"id": sections[section]["id"], "items": new_items}
        state["snapshot"] = {"sections": sections}
        return {"itemUpdates": [{"item": item, "at": [section, index]}]}, state["snapshot"]

    return make


def measure_assets(browser: Browser, namespace: Path) -> list[dict]:
    entries = browser.driver.execute_script(
        "return performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))"
        ".filter(e => !e.name.includes('/api/')).map(e => ({name: e.name, transfer: e.transferSize,"
        " encoded: e.encodedBodySize, decoded: e.decodedBodySize}));")
    for entry in entries:
        path = "/" + entry["name"].split("/", 3)[3]
        status, headers, body = request_in(namespace, path, {"Accept-Encoding": "gzip, br"})
        entry.update(path=path, status=status, encoding=headers.get("Content-Encoding", "none"), raw=len(body),
                     gzip=len(gzip.compress(body, compresslevel=6)))
    return entries


def summary(values: list[float]) -> dict:
    return {"n": len(values), "p50": statistics.median(values), "p95": percentile(values, 0.95),
            "max": max(values)} if values else {"n": 0}


def run(arguments: argparse.Namespace) -> dict:
    if not WEB.exists():
        raise SystemExit(f"{WEB} is not built: swift build -c release --product peerscan-web")
    start = synthetic.snapshot(synthetic.devices(arguments.devices))
    results: dict = {"devices": arguments.devices, "binary": str(WEB)}
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="peerscan-bench-web-")))
        (folder / "token").write_text("benchmark-token\n")
        namespace = stack.enter_context(loopback_namespace())
        daemon = stack.enter_context(FakeDaemon(folder / "io.peerscan", start))
        web = subprocess.Popen(["nsenter", f"--net={namespace}", "--", str(WEB), "--listen", f"127.0.0.1:{PORT}",
                                "--socket", str(daemon.path), "--token-file", str(folder / "token")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        stack.callback(lambda: (web.terminate(), web.wait(timeout=10)))
        wait_until(lambda: _answers(namespace), timeout=30, what="peerscan-web answering")
        time.sleep(1)
        results["rss_idle"] = rss_mib(web.pid)
        served = {}
        for path in ("/api/snapshot", "/api/events", "/api/snapshot", "/api/events"):  # the second of each counts
            started = time.monotonic()
            status, headers, body = request_in(namespace, path, {"Accept-Encoding": "gzip"})
            served[path] = {"status": status, "seconds": time.monotonic() - started, "raw": len(body),
                            "encoding": headers.get("Content-Encoding", "none"), "gzip": len(gzip.compress(body, 6))}
        results["api"] = served
        results["rss_after_api"] = rss_mib(web.pid)  # two snapshots proxied, two streams' snapshots relayed, closed
        if arguments.rss_only:
            return results | measure_streams(web, namespace, daemon, arguments)

        browser = stack.enter_context(Browser(namespace, width=1280, height=900))
        browser.driver.set_script_timeout(120)
        browser.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                       {"source": NAVIGATION_PROBE % arguments.devices})
        url = f"http://127.0.0.1:{PORT}/"
        results["navigations"] = [navigate(browser, url) for _ in range(arguments.navigations)]
        time.sleep(3)  # ListKnownDevices' reply drawn (first and last seen), the stream settled
        results["rss_one_tab"] = rss_mib(web.pid)
        results["assets"] = measure_assets(browser, namespace)
        browser.driver.execute_script(LIVE_PROBE)
        results["search"] = measure_search(browser)

        count = int(arguments.rate * arguments.seconds)
        # Devices in view (the list shows its first rows): the page makes elements only for the rows in view, so a
        # rename further down changes no element to observe (its cost, the applier's and the list's diff, is the same).
        player = daemon.play(renamer(daemon.snapshot, among=IN_VIEW), rate=arguments.rate, count=count)
        player.join()
        time.sleep(2)
        renames = browser.driver.execute_script("return window.__bench.renames;")
        results["changesets"] = {"sent": count, "seen": len(renames),
                                 "dom_ms": summary([r["changed"] - r["sent"] for r in renames]),
                                 "frame_ms": summary([r["drawn"] - r["sent"] for r in renames if "drawn" in r]),
                                 "each_ms": [[r["sent"], r["changed"] - r["sent"]] for r in renames]}
        if browser.csp_violations():
            results["csp_violations"] = browser.csp_violations()

        first = browser.driver.current_window_handle
        for _ in range(arguments.tabs - 1):
            browser.driver.switch_to.new_window("tab")
            browser.driver.get(url)
            wait_until(lambda: browser.driver.execute_script(
                "return document.querySelector('ul.devices > [aria-setsize]')?.getAttribute('aria-setsize');")
                == str(arguments.devices), timeout=180, what="a tab's device list drawn")
        browser.driver.switch_to.window(first)
        time.sleep(3)
        results["rss_tabs"] = {"tabs": arguments.tabs, **rss_mib(web.pid)}
        daemon.play(renamer(daemon.snapshot), rate=arguments.rate, count=int(arguments.rate * 10)).join()
        time.sleep(2)
        results["rss_tabs_streaming"] = {"tabs": arguments.tabs, **rss_mib(web.pid)}
    return results


def _answers(namespace: Path) -> bool:
    with contextlib.suppress(OSError):
        return request_in(namespace, "/assets/app.css")[0] == 200
    return False


def report(results: dict) -> None:
    navigations = results["navigations"]
    drawn = [n["drawn_ms"] for n in navigations]
    rows = [n["rows_ms"] for n in navigations]
    print(f"devices: {results['devices']}; peerscan-web: {results['binary']}")
    print(f"navigation → the list of {results['devices']} in the DOM: median {statistics.median(rows):.0f} ms; "
          f"→ drawn: median {statistics.median(drawn):.0f} ms, worst {max(drawn):.0f} ms "
          f"({', '.join(f'{value:.0f}' for value in drawn)})")
    for name, key in (("assets loaded", "assets_ms"), ("DOMContentLoaded", "dom_content_loaded_ms")):
        print(f"  {name}: median {statistics.median(n[key] for n in navigations):.0f} ms")
    tasks = [n["render_task_ms"] for n in navigations if n["render_task_ms"]]  # Chromium does not always report it
    if tasks:
        print(f"  the long task that parsed, applied and rendered the snapshot: {', '.join(f'{t:.0f}' for t in tasks)}"
              f" ms ({len(tasks)} of {len(navigations)} reported)")
    frames = [n["drawn_ms"] - n["rows_ms"] for n in navigations]
    print(f"  the list in the DOM → drawn (style, layout, paint): median {statistics.median(frames):.0f} ms")
    for key in results["search"]:
        print(f"search key {key['key']!r:>10}: {key['ms']:6.1f} ms to drawn ({key['handled_ms']:.1f} ms in the "
              f"handler), {key['rows']} rows")
    changes = results["changesets"]
    print(f"changesets: {changes['seen']}/{changes['sent']} seen; sent → DOM changed {_fmt(changes['dom_ms'])}; "
          f"→ next frame {_fmt(changes['frame_ms'])}")
    total = {key: sum(entry[key] for entry in results["assets"]) for key in ("transfer", "raw", "gzip")}
    for entry in results["assets"]:
        print(f"asset {entry['path']:<24} transferred {entry['transfer']:>6} B, body {entry['raw']:>6} B, "
              f"Content-Encoding {entry['encoding']}, gzip -6 {entry['gzip']:>6} B")
    print(f"assets total: transferred {total['transfer']} B, raw {total['raw']} B, gzip -6 {total['gzip']} B")
    for path, answer in results["api"].items():
        what = "its first event (the snapshot)" if path == "/api/events" else "the reply"
        print(f"{path}: {answer['seconds'] * 1000:.0f} ms from the request to the end of {what}, {answer['raw']} B, "
              f"Content-Encoding {answer['encoding']}, gzip -6 {answer['gzip']} B")
    print(f"RSS idle {results['rss_idle']['VmRSS']:.1f} MiB; after 2 × /api/snapshot and 2 × /api/events (closed) "
          f"{results['rss_after_api']['VmRSS']:.1f} MiB; one tab {results['rss_one_tab']['VmRSS']:.1f} MiB; "
          f"{results['rss_tabs']['tabs']} tabs {results['rss_tabs']['VmRSS']:.1f} MiB, streaming "
          f"{results['rss_tabs_streaming']['VmRSS']:.1f} MiB; peak {results['rss_tabs_streaming']['VmHWM']:.1f} MiB")


def _fmt(summary_: dict) -> str:
    if not summary_.get("n"):
        return "none"
    return f"p50 {summary_['p50']:.1f} ms, p95 {summary_['p95']:.1f} ms, max {summary_['max']:.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=20)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--navigations", type=int, default=5)
    parser.add_argument("--tabs", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--rss-only", action="store_true", help="peerscan-web's RSS with Python clients, no browser")
    arguments = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("run as root: the page runs in a network namespace of its own")
    results = run(arguments)
    (report_rss_only if arguments.rss_only else report)(results)
    if arguments.json:
        arguments.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
