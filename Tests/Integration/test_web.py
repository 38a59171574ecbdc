"""peerscan-web (docs/web.md) on the test LAN: peerscand in the scanner namespace, peerscan-web beside it on that
namespace's loopback, and HTTP clients (Python's http.client) connecting from inside the namespace.

The event stream is replayed with `testclient/applier.py` (written from docs/protocol.md) and compared with
GetSnapshot; the security tests check the contract's defences: the token for writes, the Host allowlist, the
JSON-only writes, the Content-Security-Policy.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading

import pytest
from test_varlink import change, device_named, has_services

from testclient import applier
from testclient.varlinkclient import canonical, client
from testkit.netns import call_in
from testkit.waiting import wait_until

WEB = str(__import__("conftest").PEERSCAND.with_name("peerscan-web"))
PORT = 8737
TOKEN = "integration-test-token-0123456789abcdef"


def connect_in(namespace: str, timeout: float = 10) -> socket.socket:
    """A TCP connection to peerscan-web from inside `namespace`, usable from any thread."""
    return call_in(namespace, lambda: socket.create_connection(("127.0.0.1", PORT), timeout=timeout))


class Web:
    """peerscan-web in the scanner namespace, and requests to it."""

    def __init__(self, lan, socket_path, tmp_path) -> None:
        self.lan = lan
        token_file = tmp_path / "web-token"
        token_file.write_text(TOKEN + "\n")
        self.log = open(tmp_path / "peerscan-web.log", "w")
        self.process = lan.popen_in_scanner([WEB, "--listen", f"127.0.0.1:{PORT}", "--socket", str(socket_path),
                                             "--token-file", str(token_file), "--log-level", "debug"],
                                            stdout=self.log, stderr=self.log)
        wait_until(self._answers, timeout=20, what="peerscan-web listening")

    def _answers(self) -> bool:
        try:
            connect_in(self.lan.scanner_ns, timeout=1).close()
            return True
        except OSError:
            return False

    def connection(self, timeout: float = 20) -> http.client.HTTPConnection:
        connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=timeout)
        connection.sock = connect_in(self.lan.scanner_ns, timeout)
        return connection

    def request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        """(status, headers, body) of one request."""
        connection = self.connection()
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.headers, response.read()
        finally:
            connection.close()

    def get_json(self, path: str) -> dict:
        status, _, body = self.request("GET", path)
        assert status == 200, (status, body)
        return json.loads(body)

    def write(self, method: str, parameters: dict, token: str | None = TOKEN, **headers) -> tuple[int, dict]:
        sent = {"Content-Type": "application/json", **headers}
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        status, _, body = self.request("POST", f"/api/{method}", json.dumps(parameters).encode(), sent)
        return status, json.loads(body)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        self.log.close()


class EventStream:
    """`/api/events` read on a thread: each event applied with `applier`, the snapshot after each sequence kept."""

    def __init__(self, web: Web, last_event_id: str | None = None, start: tuple[dict, int] | None = None) -> None:
        self.connection = web.connection(timeout=60)
        headers = {"Last-Event-ID": last_event_id} if last_event_id else {}
        self.connection.request("GET", "/api/events", headers=headers)
        self.response = self.connection.getresponse()
        assert self.response.status == 200 and self.response.headers["Content-Type"] == "text/event-stream"
        self.events: list[tuple[str, str, dict]] = []  # (kind, id, data)
        self.snapshot, self.sequence = start if start else (None, -1)
        self.history: dict[int, str] = {}
        self.errors: list[str] = []
        self.condition = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        fields: dict[str, str] = {}
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\n")
                if line.startswith(":"):
                    continue
                if line:
                    name, _, value = line.partition(": ")
                    fields[name] = value
                    continue
                self._take(fields.get("event", ""), fields.get("id", ""), json.loads(fields["data"]))
                fields = {}
        except (OSError, ValueError, AttributeError, http.client.HTTPException):
            pass  # closed by the test (http.client raises AttributeError when its connection is closed under it)

    def _take(self, kind: str, event_id: str, data: dict) -> None:
        with self.condition:
            self.events.append((kind, event_id, data))
            if event_id != f"{data['epoch']}:{data['sequence']}":
                self.errors.append(f"id {event_id} for {data['epoch']}:{data['sequence']}")
            if kind == "snapshot":
                self.snapshot = data["snapshot"]
            elif data["sequence"] != self.sequence + 1:
                self.errors.append(f"changeset {data['sequence']} after {self.sequence}")
            else:
                self.snapshot = applier.apply(self.snapshot, data["changes"])
            self.sequence = data["sequence"]
            self.history[self.sequence] = canonical(self.snapshot)
            self.condition.notify_all()

    def wait_sequence(self, sequence: int, timeout: float = 30) -> None:
        with self.condition:
            assert self.condition.wait_for(lambda: self.sequence >= sequence, timeout), (self.sequence, sequence)

    def close(self) -> None:
        self.connection.sock.shutdown(socket.SHUT_RDWR)
        self.connection.close()
        self.thread.join(timeout=10)


@pytest.fixture
def web(lan, start_varlink_daemon, socket_path, tmp_path):
    daemon = start_varlink_daemon()
    served = Web(lan, socket_path, tmp_path)
    served.daemon = daemon
    yield served
    served.stop()


def test_the_snapshot_is_get_snapshots_reply(web, socket_path):
    control = client(socket_path).open("io.peerscan", namespaced=False)
    for _ in range(10):  # until no change came between the two calls
        served, direct = web.get_json("/api/snapshot"), control.GetSnapshot()
        if served["sequence"] == direct["sequence"]:
            break
    assert (served["epoch"], served["sequence"]) == (direct["epoch"], direct["sequence"])
    assert canonical(served["snapshot"]) == canonical(direct["snapshot"])
    status, headers, _ = web.request("GET", "/api/snapshot")
    assert status == 200 and headers["Cache-Control"] == "no-store" and headers["X-Content-Type-Options"] == "nosniff"
    assert "default-src 'none'" in headers["Content-Security-Policy"] and headers["Referrer-Policy"] == "no-referrer"


def test_the_event_stream_replayed_equals_get_snapshot_after_churn(lan, web, socket_path):
    control = client(socket_path).open("io.peerscan", namespaced=False)
    stream = EventStream(web)
    alpha = lan.add_peer("alpha")
    change(alpha, "register", "Alpha", "_http._tcp", 80, {"path": "/"})
    change(alpha, "register", "Alpha", "_ssh._tcp", 22)
    web.daemon.wait_for(has_services("alpha.local", {"_http._tcp", "_ssh._tcp"}), what="alpha")
    control.SetScanning(False)
    control.SetScanning(True)
    change(alpha, "unregister", "Alpha", "_ssh._tcp")
    web.daemon.wait_for(has_services("alpha.local", {"_http._tcp"}), what="ssh gone")
    now = control.GetSnapshot()
    stream.wait_sequence(now["sequence"])
    stream.close()
    assert stream.events[0][0] == "snapshot" and stream.events[0][2]["resync"] is False
    assert [kind for kind, _, _ in stream.events[1:]] == ["changeset"] * (len(stream.events) - 1)
    assert stream.errors == []
    assert stream.history[now["sequence"]] == canonical(now["snapshot"])


def test_a_cut_stream_resumed_with_last_event_id_gets_the_missed_changesets(web, socket_path):
    control = client(socket_path).open("io.peerscan", namespaced=False)
    first = EventStream(web)
    first.wait_sequence(0)
    first.close()
    kind, last_id, data = first.events[-1]
    kept = (first.snapshot, first.sequence)
    control.SetScanning(False)
    control.SetScanning(True)
    now = control.GetSnapshot()

    resumed = EventStream(web, last_event_id=last_id, start=kept)
    resumed.wait_sequence(now["sequence"])
    resumed.close()
    assert resumed.events and all(kind == "changeset" for kind, _, _ in resumed.events)
    assert [data["sequence"] for _, _, data in resumed.events][:now["sequence"] - first.sequence] == \
        list(range(first.sequence + 1, now["sequence"] + 1))
    assert resumed.errors == [] and resumed.history[now["sequence"]] == canonical(now["snapshot"])


def test_writes_need_the_token_and_a_label_with_it_reaches_get_device(lan, web, socket_path):
    alpha = lan.add_peer("alpha")
    change(alpha, "register", "Alpha", "_http._tcp", 80)
    snapshot = web.daemon.wait_for(lambda s: device_named(s, "alpha.local"), what="alpha")
    device_id = device_named(snapshot, "alpha.local")["id"]
    control = client(socket_path).open("io.peerscan", namespaced=False)
    before = control.GetSnapshot()

    for token in (None, "wrong", TOKEN[:-1]):
        status, body = web.write("SetDeviceLabel", {"id": device_id, "name": "Hacked"}, token=token)
        assert status == 401 and body["error"] == "peerscan-web.Unauthorized", (token, status, body)
        status, _ = web.write("SetScanning", {"enabled": False}, token=token)
        assert status == 401
    # A cross-origin HTML form can send only form types, no Authorization header: refused before anything else.
    status, _, _ = web.request("POST", "/api/SetScanning", b"enabled=false",
                               {"Content-Type": "application/x-www-form-urlencoded", "Origin": "http://evil.example"})
    assert status == 401
    # With the token, a form body is still refused.
    status, _, _ = web.request("POST", "/api/SetScanning", b"enabled=false",
                               {"Content-Type": "application/x-www-form-urlencoded",
                                "Authorization": f"Bearer {TOKEN}"})
    assert status == 415
    for method in ("GetSnapshot", "TrustWiFiNetwork", "Monitor"):
        status, error = web.write(method, {})
        assert status == 404 and error["error"] == "peerscan-web.NotFound", (method, status, error)
    after = control.GetSnapshot()
    assert (after["epoch"], after["sequence"]) == (before["epoch"], before["sequence"]), "nothing changed"
    assert control.GetDevice(device_id).get("label") is None

    status, reply = web.write("SetDeviceLabel", {"id": device_id, "name": "Kitchen"})
    assert status == 200 and reply["name"] == "Kitchen", reply
    assert control.GetDevice(device_id)["label"] == "Kitchen"
    assert web.get_json(f"/api/devices/{device_id}")["label"] == "Kitchen"
    assert any(d["id"] == device_id for d in web.get_json("/api/known")["devices"])
    status, error = web.write("SetDeviceLabel", {"id": "00000000-0000-0000-0000-000000000000", "name": "x"})
    assert status == 404 and error["error"] == "io.peerscan.DeviceNotFound", error


def test_a_foreign_host_is_misdirected_and_every_response_has_the_csp(web):
    for path in ("/", "/api/snapshot", "/assets/index.html"):
        status, headers, _ = web.request("GET", path, headers={"Host": "evil.example:8737"})
        assert status == 421, path
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    status, _, _ = web.request("POST", "/api/SetScanning", b'{"enabled": false}',
                               {"Host": "evil.example", "Content-Type": "application/json",
                                "Authorization": f"Bearer {TOKEN}"})
    assert status == 421
    for path in ("/", "/wifi", "/devices/abc"):
        status, headers, body = web.request("GET", path)
        assert status == 200 and headers["Content-Type"].startswith("text/html") and b'src="/assets/app.js"' in body
        assert headers["Content-Security-Policy"].startswith("default-src 'none'; script-src 'self'")
    status, _, _ = web.request("GET", "/assets/..%2FPackage.swift")
    assert status == 404


def test_the_stream_ends_when_peerscand_goes_and_resumes_after_its_restart(web, start_varlink_daemon):
    stream = EventStream(web)
    stream.wait_sequence(0)
    kind, last_id, data = stream.events[-1]
    assert web.daemon.stop() == 0
    stream.thread.join(timeout=20)
    assert not stream.thread.is_alive(), "the stream did not end with peerscand"
    start_varlink_daemon()  # a new peerscand on the same socket
    # Another epoch: resuming gives a snapshot marked resync.
    resumed = EventStream(web, last_event_id=last_id)
    resumed.wait_sequence(0)
    resumed.close()
    first_kind, _, first = resumed.events[0]
    assert first_kind == "snapshot" and first["resync"] is True and first["epoch"] != data["epoch"]
