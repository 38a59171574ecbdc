"""A real Home Assistant Core on the test LAN, for Tests/HomeAssistant (`make ha-test`, root).

Home Assistant is installed by scripts/install-home-assistant (a venv of its own, cached in
/var/cache/peerscan/home-assistant/) and runs in the scanner namespace of the integration tests' LAN
(Tests/Integration/conftest.py: `lan`, `start_daemon`, reused here), beside a mosquitto broker on that namespace's
loopback (`testlan.broker.Broker`). Its HTTP server listens on the namespace's 127.0.0.1 only, and nothing in its
configuration reaches further: no `default_config:` (no cloud, no discovery, no recorder), and the namespace has no
route out of the test LAN.

Its configuration directory is written before its first start: `configuration.yaml` (the location and units set, so
nothing is looked up), the MQTT integration's config entry in `.storage/core.config_entries` (as the UI's flow
would have created it, pointing at the test broker) and a user with a long-lived access token in `.storage/auth`
(the tests sign the token themselves: an HS256 JWT whose issuer is the refresh token's id). The tests talk to it
over its websocket API through websocket_bridge.py, run with Home Assistant's Python in the namespace.

Home Assistant 2025.4 always sets up its built-in core integrations (frontend, backup, person, …: bootstrap's
DEFAULT_INTEGRATIONS) besides what the configuration names; none of them is configured to reach outside.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import queue
import secrets
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from testkit.waiting import wait_notified, wait_until

# The integration tests' fixtures and helpers, reused. Their modules import `conftest` by name (how pytest imports a
# conftest outside a package): when this directory's tests run, `conftest` is this module, so it re-exports what they
# take from it (Daemon, PEERSCAND).
from Tests.Integration import conftest as integration

if TYPE_CHECKING:
    from testlan.broker import Broker

Daemon, PEERSCAND = integration.Daemon, integration.PEERSCAND
lan, start_daemon, broker = integration.lan, integration.start_daemon, integration.broker  # fixtures

ROOT = Path(__file__).resolve().parents[2]
BRIDGE = Path(__file__).with_name("websocket_bridge.py")
HTTP_PORT = 8123
ENTRY_ID = "01JPEERSCANTESTMQTTENTRY000"


def pytest_collection_modifyitems(config, items):
    if os.geteuid() != 0:
        raise pytest.UsageError("the Home Assistant tests create network namespaces: run them as root")
    if not PEERSCAND.exists():
        raise pytest.UsageError(f"{PEERSCAND} is missing: run `swift build` first (or set PEERSCAND)")


@pytest.fixture(scope="session")
def home_assistant_python() -> Path:
    """Home Assistant's Python: $HOME_ASSISTANT_PYTHON (make ha-test sets it), else what
    scripts/install-home-assistant installs (or finds cached)."""
    if path := os.environ.get("HOME_ASSISTANT_PYTHON"):
        return Path(path)
    result = subprocess.run([str(ROOT / "scripts" / "install-home-assistant")], stdout=subprocess.PIPE, text=True,
                            check=True)
    return Path(result.stdout.strip().splitlines()[-1])


def _base64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def access_token(refresh_token_id: str, jwt_key: str) -> str:
    """A Home Assistant access token for this refresh token: an HS256 JWT signed with its key (what
    `hass.auth.async_create_access_token` makes), valid for a day."""
    now = int(time.time())
    header = _base64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _base64url(json.dumps({"iss": refresh_token_id, "iat": now, "exp": now + 86400}).encode())
    signature = hmac.new(jwt_key.encode(), f"{header}.{payload}".encode(), hashlib.sha256).digest()
    return f"{header}.{payload}.{_base64url(signature)}"


def _store(key: str, data: dict, minor_version: int = 1) -> str:
    return json.dumps({"version": 1, "minor_version": minor_version, "key": key, "data": data}, indent=2)


class HomeAssistant:
    """Home Assistant Core in namespace `ns`, configured in `directory` (`prepare()` writes it, once, before the first
    `start()`); `call()` sends a websocket command and returns its result, `events` keeps every event of the
    subscriptions made with `subscribe()`, in order, each with the monotonic time it arrived."""

    def __init__(self, python: Path, ns: str, directory: Path, broker: Broker) -> None:
        self.python, self.ns, self.directory, self.broker = python, ns, directory, broker
        self.log = directory / "home-assistant.log"
        self.process: subprocess.Popen | None = None
        self.bridge: subprocess.Popen | None = None
        self.token = ""
        self.condition = threading.Condition()
        self.results: dict[int, dict] = {}
        self.events: list[tuple[float, dict]] = []
        self.bridge_lines: queue.Queue = queue.Queue()
        self._next_id = 1
        self._subscriptions: set[int] = set()

    def prepare(self) -> None:
        storage = self.directory / ".storage"
        storage.mkdir(parents=True)
        (self.directory / "configuration.yaml").write_text(
            "# peerscan's Home Assistant test: no default_config (nothing that reaches out), the MQTT integration\n"
            "# comes from its config entry in .storage/core.config_entries.\n"
            "homeassistant:\n"
            "  name: peerscan test\n"
            "  latitude: 46.95\n  longitude: 7.45\n  elevation: 540\n"
            "  unit_system: metric\n  time_zone: UTC\n  country: CH\n  currency: CHF\n  language: en\n"
            f"http:\n  server_host: 127.0.0.1\n  server_port: {HTTP_PORT}\n"
            "logger:\n  default: warning\n  logs:\n"
            "    homeassistant.components.mqtt: info\n")
        now = datetime.now(UTC).isoformat()
        entry = {"created_at": now, "data": {"broker": self.broker.host, "port": self.broker.port},
                 "discovery_keys": {}, "disabled_by": None, "domain": "mqtt", "entry_id": ENTRY_ID,
                 "minor_version": 2, "modified_at": now,
                 "options": {"discovery": True, "discovery_prefix": "homeassistant"},
                 "pref_disable_new_entities": False, "pref_disable_polling": False, "source": "user",
                 "subentries": [], "title": self.broker.host, "unique_id": None, "version": 1}
        (storage / "core.config_entries").write_text(_store("core.config_entries", {"entries": [entry]}, 5))
        user_id, refresh_token_id, jwt_key = secrets.token_hex(16), secrets.token_hex(16), secrets.token_hex(64)
        # No groups: Home Assistant makes its system groups and puts this (non-system) user into the admins.
        auth = {"users": [{"id": user_id, "group_ids": [], "is_owner": True, "is_active": True, "name": "peerscan",
                           "system_generated": False, "local_only": False}],
                "groups": [], "credentials": [],
                "refresh_tokens": [{"id": refresh_token_id, "user_id": user_id, "client_id": None,
                                    "client_name": "peerscan test", "client_icon": None,
                                    "token_type": "long_lived_access_token", "created_at": now,
                                    "access_token_expiration": 86400.0, "token": secrets.token_hex(64),
                                    "jwt_key": jwt_key, "last_used_at": None, "last_used_ip": None,
                                    "expire_at": None, "credential_id": None, "version": None}]}
        (storage / "auth").write_text(_store("auth", auth))
        self.token = access_token(refresh_token_id, jwt_key)

    def start(self) -> None:
        """Starts Home Assistant and its websocket bridge; returns once it is running (its core state RUNNING)
        with the MQTT integration's config entry loaded."""
        self.process = subprocess.Popen(
            ["ip", "netns", "exec", self.ns, str(self.python), "-m", "homeassistant", "--config", str(self.directory),
             "--skip-pip", "--log-no-color", "--log-file", str(self.log)],
            stdout=subprocess.DEVNULL, stderr=(self.directory / "stderr.log").open("w"))
        self.bridge = subprocess.Popen(
            ["ip", "netns", "exec", self.ns, str(self.python), str(BRIDGE),
             f"ws://127.0.0.1:{HTTP_PORT}/api/websocket", self.token],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        threading.Thread(target=self._read_bridge, daemon=True).start()
        first = self._first_bridge_line(240)
        assert first.get("type") == "auth_ok", f"Home Assistant refused the token: {first}\n{self.log_tail()}"
        wait_until(lambda: self.call("get_config")["state"] == "RUNNING", 120, "Home Assistant to run",
                   interval=0.5, give_up=self.exited, details=self.log_tail)
        wait_until(lambda: any(entry["entry_id"] == ENTRY_ID and entry["state"] == "loaded"
                               for entry in self.call("config_entries/get", domain="mqtt")), 60,
                   "the MQTT config entry to load", interval=0.5, give_up=self.exited, details=self.log_tail)

    def _first_bridge_line(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                return self.bridge_lines.get(timeout=0.5)
            except queue.Empty:
                if why := self.exited():
                    raise AssertionError(f"{why}\n{self.log_tail()}") from None
        raise AssertionError(f"no websocket connection to Home Assistant within {timeout} s\n{self.log_tail()}")

    def _read_bridge(self) -> None:
        first = True
        for line in self.bridge.stdout:
            message = json.loads(line)
            if first:
                self.bridge_lines.put(message)
                first = False
                continue
            with self.condition:
                if message.get("type") == "result":
                    self.results[message["id"]] = message
                elif message.get("type") == "event":
                    self.events.append((time.monotonic(), message["event"]))
                self.condition.notify_all()
        with self.condition:
            self.condition.notify_all()

    def exited(self) -> str | None:
        """Why a wait on Home Assistant is over early."""
        if self.process and (code := self.process.poll()) is not None:
            return f"Home Assistant exited ({code})"
        if self.bridge and (code := self.bridge.poll()) is not None:
            return f"the websocket bridge exited ({code})"
        return None

    def call(self, type: str, timeout: float = 30, **fields) -> object:
        """Sends one websocket command; returns its result, or raises AssertionError with Home Assistant's error."""
        with self.condition:
            id, self._next_id = self._next_id, self._next_id + 1
        self.bridge.stdin.write(json.dumps({"id": id, "type": type, **fields}) + "\n")
        self.bridge.stdin.flush()
        with self.condition:
            wait_notified(self.condition, lambda: id in self.results, timeout, what=f"the answer to {type}",
                          give_up=self.exited, details=self.log_tail)
            answer = self.results.pop(id)
        assert answer["success"], f"{type} {fields}: {answer.get('error')}"
        return answer["result"]

    def subscribe(self, event_type: str) -> None:
        self.call("subscribe_events", event_type=event_type)

    def events_since(self, since: float, event_type: str | None = None) -> list[dict]:
        with self.condition:
            return [event for at, event in self.events
                    if at >= since and (event_type is None or event.get("event_type") == event_type)]

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 30, what: str = "condition") -> float:
        """Polls `predicate` (which may call Home Assistant) until it holds; returns how long that took."""
        return wait_until(predicate, timeout, what, interval=0.25, give_up=self.exited, details=self.log_tail)

    def entities(self) -> dict[str, dict]:
        """The entity registry's MQTT entries, by unique_id."""
        return {entry["unique_id"]: entry for entry in self.call("config/entity_registry/list")
                if entry["platform"] == "mqtt"}

    def devices(self) -> dict[str, dict]:
        """The device registry's devices of the MQTT config entry, by id."""
        return {device["id"]: device for device in self.call("config/device_registry/list")
                if ENTRY_ID in device["config_entries"]}

    def states(self, domain: str = "device_tracker") -> dict[str, dict]:
        return {state["entity_id"]: state for state in self.call("get_states")
                if state["entity_id"].startswith(f"{domain}.")}

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def log_tail(self, lines: int = 40) -> str:
        return "Home Assistant's log:\n" + "\n".join(self.log_text().splitlines()[-lines:])

    def stop(self) -> None:
        if self.bridge and self.bridge.poll() is None:
            self.bridge.stdin.close()
            self.bridge.terminate()
            try:
                self.bridge.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.bridge.kill()
                self.bridge.wait()
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def home_assistant(lan, broker, tmp_path, home_assistant_python):
    """A running Home Assistant next to the broker (in the scanner namespace), its MQTT integration connected to it;
    stopped (and its log kept in the test's temp dir) at the end."""
    for family in ("-4", "-6"):  # nothing Home Assistant might try to reach outside the test LAN is reachable
        routes = subprocess.run(["ip", family, "-n", lan.scanner_ns, "route", "show", "default"], check=True,
                                capture_output=True, text=True).stdout
        assert not routes.strip(), f"the scanner namespace has a default route: {routes}"
    instance = HomeAssistant(home_assistant_python, lan.scanner_ns, tmp_path / "home-assistant", broker)
    instance.prepare()
    try:
        instance.start()
        yield instance
    finally:
        instance.stop()
