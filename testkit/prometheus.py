"""A real Prometheus under test: Debian's `prometheus` (2.42) in a network namespace, scraping a target there and
evaluating the shipped alerting rules (packaging/prometheus/peerscan-rules.yml), its HTTP API read from inside the
namespace; and `promtool`, which checks rules, rule tests and exposition bodies.

Everything it writes (the configuration, the time-series database, its log) is in a directory of the caller's
(default: a temporary one, removed by `stop`). It listens on the namespace's loopback only (``--web.listen-address
127.0.0.1:PORT``), so nothing is bound in the host's namespace; the API is reached by a connection made from a thread
that joined the namespace (testkit/netns.py). `Prometheus` is a context manager: it is stopped (SIGTERM, then SIGKILL)
when the block ends, a failed test's too.

```python
with Prometheus(lan.scanner_ns, ["127.0.0.1:8737"], popen=lan.popen_in_scanner) as prometheus:
    prometheus.wait_scraped()
    prometheus.query('count({__name__=~"peerscan_.+"})')
```
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import urllib.parse
from collections.abc import Callable, Sequence
from pathlib import Path

from testkit.netns import call_in
from testkit.waiting import wait_until

__all__ = ["PROMETHEUS", "PROMTOOL", "RULES", "Prometheus", "promtool"]

ROOT = Path(__file__).resolve().parents[1]
PROMETHEUS = os.environ.get("PROMETHEUS", "/usr/bin/prometheus")
PROMTOOL = os.environ.get("PROMTOOL", "/usr/bin/promtool")
RULES = ROOT / "packaging" / "prometheus" / "peerscan-rules.yml"
JOB = "peerscan"  # the job name the rules' PeerscanDown reads `up` of (docs/metrics.md)


def promtool(*arguments: str, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`promtool ARGUMENTS` run to completion (it needs no network): its exit status, standard output and error (text).

    - Parameters:
      - stdin: what it reads (`check metrics` reads the body there).
    """
    return subprocess.run([PROMTOOL, *arguments], input=stdin, capture_output=True, timeout=60, cwd=cwd)


class PrometheusError(AssertionError):
    """The API answered with an error, or not with JSON: a failed test."""


class Prometheus:
    """One Prometheus server in `namespace`, scraping `targets` every `scrape_interval` in the job `JOB` and evaluating
    `rule_files` every `evaluation_interval`."""

    def __init__(self, namespace: str | Path, targets: Sequence[str], *, popen: Callable[..., subprocess.Popen],
                 directory: Path | None = None, port: int = 9090, rule_files: Sequence[Path] = (RULES,),
                 scrape_interval: str = "1s", evaluation_interval: str = "1s") -> None:
        """- Parameters:
          - namespace: the network namespace it runs in (a name of `ip netns` or a path), where `targets` are reached.
          - targets: `host:port` of each /metrics to scrape (peerscan-web's listener).
          - popen: how to start a process in `namespace`, called as `subprocess.Popen` is (a test LAN's
            `popen_in_scanner`).
          - directory: where its configuration, database and log go (default: a temporary directory, removed by
            `stop`).
          - port: its API's port on the namespace's loopback.
        """
        self.namespace = namespace
        self.targets = list(targets)
        self.popen = popen
        self.port = port
        self.rule_files = [Path(path).resolve() for path in rule_files]
        self.scrape_interval = scrape_interval
        self.evaluation_interval = evaluation_interval
        self._owns_directory = directory is None
        self.directory = Path(tempfile.mkdtemp(prefix="peerscan-prometheus-")) if directory is None else directory
        self.process: subprocess.Popen | None = None
        self._log = None

    @property
    def config(self) -> dict:
        """prometheus.yml (JSON is YAML): the global intervals, the rule files and one scrape job."""
        return {
            "global": {"scrape_interval": self.scrape_interval, "scrape_timeout": self.scrape_interval,
                       "evaluation_interval": self.evaluation_interval},
            "rule_files": [str(path) for path in self.rule_files],
            "scrape_configs": [{"job_name": JOB, "static_configs": [{"targets": self.targets}]}],
        }

    @property
    def log_path(self) -> Path:
        return self.directory / "prometheus.log"

    def start(self, timeout: float = 60) -> Prometheus:
        """Writes the configuration, starts Prometheus and waits until its API is ready (`/-/ready`).

        - Raises: `testkit.waiting.WaitError` after `timeout`, or at once when it exits (its log's tail in the
          message).
        """
        assert self.process is None, "Prometheus was already started"
        self.directory.mkdir(parents=True, exist_ok=True)
        config = self.directory / "prometheus.yml"
        config.write_text(json.dumps(self.config, indent=2) + "\n")
        self._log = open(self.log_path, "w")
        self.process = self.popen([PROMETHEUS, f"--config.file={config}",
                                   f"--storage.tsdb.path={self.directory / 'data'}",
                                   f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=info"],
                                  stdout=self._log, stderr=subprocess.STDOUT)
        wait_until(self._ready, timeout, interval=0.2, what="Prometheus ready", give_up=self.exited,
                   details=self.log_tail)
        return self

    def exited(self) -> str | None:
        """Why a wait on it is over early: it exited (a `give_up` of testkit.waiting)."""
        code = self.process.poll() if self.process is not None else None
        return None if code is None else f"prometheus exited ({code})"

    def log_tail(self, count: int = 20) -> str:
        """The last `count` lines of its log."""
        try:
            return "prometheus log:\n" + "\n".join(self.log_path.read_text().splitlines()[-count:])
        except OSError as error:
            return f"no prometheus log: {error}"

    def _ready(self) -> bool:
        try:
            return self.get("/-/ready")[0] == 200
        except OSError:
            return False

    def get(self, path: str, timeout: float = 10) -> tuple[int, bytes]:
        """(status, body) of `GET path` on its API, connected from inside the namespace."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        connection.sock = call_in(self.namespace,
                                  lambda: socket.create_connection(("127.0.0.1", self.port), timeout=timeout))
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def api(self, path: str, **parameters: str) -> dict | list:
        """The `data` of an `/api/v1/…` answer.

        - Raises: `PrometheusError` when it is not a success.
        """
        query = f"?{urllib.parse.urlencode(parameters)}" if parameters else ""
        status, body = self.get(f"/api/v1/{path}{query}")
        try:
            answer = json.loads(body)
        except ValueError:
            raise PrometheusError(f"/api/v1/{path}: {status} {body[:200]!r}") from None
        if status != 200 or answer.get("status") != "success":
            raise PrometheusError(f"/api/v1/{path}{query}: {status} {answer}")
        return answer["data"]

    def query(self, expression: str) -> list[dict]:
        """An instant query's vector: each element's labels (`metric`) and value (`value`: [time, "text"])."""
        data = self.api("query", query=expression)
        assert data["resultType"] == "vector", data
        return data["result"]

    def value(self, expression: str) -> float | None:
        """The value of a query whose answer is one element (None when it is empty)."""
        result = self.query(expression)
        assert len(result) <= 1, f"{expression}: {len(result)} elements"
        return float(result[0]["value"][1]) if result else None

    def target(self) -> dict:
        """The first target's state (`/api/v1/targets`): health, lastScrape, lastError, scrapeInterval, …; empty until
        Prometheus has set its targets up (just after the start)."""
        targets = self.api("targets")["activeTargets"]
        return targets[0] if targets else {}

    def wait_scraped(self, count: int = 1, timeout: float = 30) -> None:
        """Waits until the first target was scraped `count` more times, the last one successfully."""
        old = {self.target().get("lastScrape"), "0001-01-01T00:00:00Z", None}  # the last one, and none yet
        seen: set[str] = set()

        def scraped() -> bool:
            target = self.target()
            seen.add(target.get("lastScrape"))
            return len(seen - old) >= count and target.get("health") == "up"

        wait_until(scraped, timeout, interval=0.2, what=f"{count} successful scrape(s) of {self.targets[0]}",
                   give_up=self.exited, details=lambda: f"target: {self.target()}\n{self.log_tail()}")

    def alerts(self, state: str | None = None) -> list[dict]:
        """The alerts the rules hold (`/api/v1/alerts`): labels, annotations, state (pending or firing), activeAt."""
        alerts = self.api("alerts")["alerts"]
        return [alert for alert in alerts if state is None or alert["state"] == state]

    def stop(self, timeout: float = 15) -> None:
        """SIGTERM, then SIGKILL after `timeout`; removes its directory if it made it. Idempotent."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._owns_directory:
            shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> Prometheus:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()
