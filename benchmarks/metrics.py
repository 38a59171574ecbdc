"""``GET /metrics`` at scale (issue 38): peerscan-web's scrape time and series count with 10,000 devices.

Run as root from the repository's root, after a release build of peerscan-web (``make bench-metrics`` does both;
``PEERSCAN_WEB`` overrides ``.build/release/peerscan-web``)::

    .venv/bin/python -m benchmarks.metrics [--devices 10000] [--scrapes 50] [--json FILE]

peerscan-web runs in a throw-away network namespace with only loopback (``unshare --net``, as ``make bench-web``);
its peerscand is testkit/fakedaemon.py serving ``--devices`` synthetic devices (testkit/synthetic.py) and answering
GetStatistics. Once peerscan-web's own follower has the snapshot (``/metrics`` shows every device), ``--scrapes``
scrapes in each format (Prometheus's text, then OpenMetrics), on one kept-alive connection as Prometheus scrapes,
are timed from Python in the namespace: from the request to the body's last byte (GetStatistics's round trip to the
fake included). Reported: median, p95 and worst of each format; the series (sample lines) against the bound, 3 ×
devices + 60; the body's bytes; peerscan-web's RSS before and after the scrapes.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from testkit import synthetic
from testkit.browser import loopback_namespace
from testkit.fakedaemon import FakeDaemon
from testkit.netns import call_in
from testkit.waiting import wait_until

ROOT = Path(__file__).resolve().parents[1]
WEB = Path(os.environ.get("PEERSCAN_WEB", ROOT / ".build" / "release" / "peerscan-web"))
PORT = 8737
FORMATS = {"prometheus": "text/plain;version=0.0.4", "openmetrics": "application/openmetrics-text;version=1.0.0"}


def scrapes(namespace: Path, accept: str, count: int) -> tuple[list[float], bytes]:
    """``count`` scrapes on one connection: each one's seconds, and the last body."""

    def run() -> tuple[list[float], bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
        seconds, body = [], b""
        try:
            for _ in range(count):
                started = time.perf_counter()
                connection.request("GET", "/metrics", headers={"Accept": accept})
                response = connection.getresponse()
                body = response.read()
                seconds.append(time.perf_counter() - started)
                assert response.status == 200, (response.status, body[:200])
        finally:
            connection.close()
        return seconds, body

    return call_in(namespace, run)


def device_series(namespace: Path) -> int:
    """The devices ``/metrics`` shows now (its ``peerscan_device_present`` samples)."""
    with contextlib.suppress(OSError):
        body = scrapes(namespace, FORMATS["prometheus"], 1)[1]
        return body.count(b"\npeerscan_device_present{")
    return -1


def rss_mib(pid: int) -> float:
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024


def summary(seconds: list[float]) -> dict:
    ordered = sorted(value * 1000 for value in seconds)
    return {"n": len(ordered), "p50": statistics.median(ordered),
            "p95": ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], "max": ordered[-1]}


def run(arguments: argparse.Namespace) -> dict:
    if not WEB.exists():
        raise SystemExit(f"{WEB} is not built: swift build -c release --product peerscan-web")
    devices = synthetic.devices(arguments.devices)
    results: dict = {"devices": arguments.devices, "binary": str(WEB), "bound": 3 * arguments.devices + 60}
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="peerscan-bench-metrics-")))
        (folder / "token").write_text("benchmark-token\n")
        namespace = stack.enter_context(loopback_namespace())
        daemon = stack.enter_context(FakeDaemon(folder / "io.peerscan", synthetic.snapshot(devices)))
        web = subprocess.Popen(["nsenter", f"--net={namespace}", "--", str(WEB), "--listen", f"127.0.0.1:{PORT}",
                                "--socket", str(daemon.path), "--token-file", str(folder / "token")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        stack.callback(lambda: (web.terminate(), web.wait(timeout=10)))
        started = time.monotonic()
        wait_until(lambda: device_series(namespace) == arguments.devices, timeout=120,
                   what="every device in /metrics")
        results["follower_ready_s"] = time.monotonic() - started
        results["rss_before_mib"] = rss_mib(web.pid)
        for name, accept in FORMATS.items():
            scrapes(namespace, accept, 3)  # warm: the first scrapes size the allocator's arenas
            seconds, body = scrapes(namespace, accept, arguments.scrapes)
            samples = [line for line in body.split(b"\n") if line and not line.startswith(b"#")]
            results[name] = {"ms": summary(seconds), "series": len(samples), "bytes": len(body)}
        results["rss_after_mib"] = rss_mib(web.pid)
    return results


def report(results: dict) -> None:
    print(f"devices: {results['devices']}; peerscan-web: {results['binary']}; "
          f"its follower had the snapshot {results['follower_ready_s']:.1f} s after start")
    for name in FORMATS:
        entry = results[name]
        ms = entry["ms"]
        print(f"{name}: {ms['n']} scrapes, p50 {ms['p50']:.1f} ms, p95 {ms['p95']:.1f} ms, max {ms['max']:.1f} ms; "
              f"{entry['series']} series (bound {results['bound']}), {entry['bytes']} B")
    print(f"RSS before the scrapes {results['rss_before_mib']:.1f} MiB, after {results['rss_after_mib']:.1f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", type=int, default=10_000)
    parser.add_argument("--scrapes", type=int, default=50)
    parser.add_argument("--json", type=Path, help="also write the results here")
    arguments = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("run as root: peerscan-web runs in a network namespace of its own")
    results = run(arguments)
    report(results)
    if arguments.json:
        arguments.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
