"""peerscand's MQTT mirror against a real Mosquitto broker (Debian's `mosquitto`), read by a real subscriber
(`mosquitto_sub`, which prints every message as JSON with its retain flag): the retained topics equal the snapshot,
the `events` stream replayed by the independent applier equals them too, broker trouble loses nothing, and two
scanners on two test LANs share one broker.

The broker listens only inside the test's namespaces (the scanner namespace's loopback, or a broker namespace joined
to each scanner namespace by its own veth pair).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from testclient import applier, varlinkclient
from testkit.waiting import wait_notified, wait_until
from testlan.broker import Broker
from testlan.lan import TestLAN
from testlan.netns import run

from conftest import Daemon

PREFIX = "peerscan/test"


class Subscriber:
    """`mosquitto_sub` on a topic filter for as long as the test runs, every message kept in order."""

    def __init__(self, broker: Broker, filter: str) -> None:
        self.messages: list[dict] = []
        self.condition = threading.Condition()
        self.process = subprocess.Popen(["ip", "netns", "exec", broker.ns, "mosquitto_sub", "-h", broker.host, "-p",
                                         str(broker.port), "-t", filter, "-F", "%j", "-q", "1"],
                                        stdout=subprocess.PIPE, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            with self.condition:
                self.messages.append(json.loads(line))
                self.condition.notify_all()

    def wait_for(self, predicate: Callable[[list[dict]], bool], timeout: float = 20, what: str = "") -> None:
        with self.condition:
            wait_notified(self.condition, lambda: predicate(self.messages), timeout, what,
                          details=lambda: f"got {self.messages[-5:]}")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=5)


def retained_devices(broker: Broker, prefix: str = PREFIX) -> dict[str, dict]:
    """The device topics retained under `prefix`, as id → item."""
    return {topic.rsplit("/", 1)[1]: json.loads(payload)
            for topic, payload in broker.retained(f"{prefix}/devices/+").items()}


def test_every_device_is_a_retained_topic_equal_to_its_snapshot_item(lan, start_daemon, broker):
    alpha, beta = lan.add_peer("alpha"), lan.add_peer("beta")
    alpha.register("Alpha", "_http._tcp", 80)
    beta.register("Beta", "_ipp._tcp", 631, txt={"rp": "printer"})
    daemon = start_daemon("--mqtt-url", broker.url, "--mqtt-topic-prefix", PREFIX)
    daemon.wait_for(lambda s: len(applier.devices(s)) == 2, what="both devices")
    wait_until(lambda: retained_devices(broker) == daemon.devices(), 10, "the retained devices to equal the snapshot")
    assert broker.retained(f"{PREFIX}/status") == {f"{PREFIX}/status": "online"}

    beta.unregister("Beta", "_ipp._tcp")
    daemon.wait_for(lambda s: len(applier.devices(s)) == 1, what="beta gone")
    wait_until(lambda: retained_devices(broker) == daemon.devices(), 10, "beta's topic deleted")
    assert [item["hostName"] for item in retained_devices(broker).values()] == ["alpha.local"]
    assert daemon.stop() == 0, "\n".join(line[:300] for line in daemon.stderr_lines[-12:])
    assert broker.retained(f"{PREFIX}/status") == {f"{PREFIX}/status": "offline"}, "a clean stop says offline"
    assert any("mqtt connected" in line and "protocol=5" in line for line in daemon.stderr_lines)


def test_home_assistant_discovery_configs_follow_the_devices(lan, start_daemon, broker):
    alpha = lan.add_peer("alpha")
    alpha.register("Alpha", "_http._tcp", 80)
    daemon = start_daemon("--mqtt-url", broker.url, "--mqtt-topic-prefix", PREFIX, "--mqtt-home-assistant")
    snapshot = daemon.wait_for(lambda s: len(applier.devices(s)) == 1, what="alpha")
    (device_id, item), = applier.devices(snapshot).items()
    configs = {}
    wait_until(lambda: configs.update(broker.retained("homeassistant/device_tracker/+/+/config")) or configs, 10,
               "the discovery config")
    (topic, payload), = configs.items()
    assert topic.endswith(f"/{device_id}/config")
    config = json.loads(payload)
    assert config["state_topic"] == config["json_attributes_topic"] == f"{PREFIX}/devices/{device_id}"
    assert config["availability_topic"] == f"{PREFIX}/status"
    assert config["unique_id"].endswith(device_id) and config["device"]["identifiers"] == [f"peerscan_{device_id}"]
    assert config["default_entity_id"] == "device_tracker." + re.sub(r"[^a-z0-9]+", "_", config["unique_id"].lower())
    assert config["device"]["name"] == item["displayName"] == "Alpha"
    assert config["source_type"] == "router" and config["payload_home"] == "home"
    alpha.unregister("Alpha", "_http._tcp")
    daemon.wait_for(lambda s: not applier.devices(s), what="alpha gone")
    wait_until(lambda: not broker.retained("homeassistant/device_tracker/+/+/config"), 10, "the config deleted")


def test_the_events_stream_replayed_by_an_independent_applier_equals_the_retained_devices(lan, start_daemon, broker):
    events = Subscriber(broker, f"{PREFIX}/events")
    try:
        time.sleep(0.3)  # subscribed before the daemon publishes its first snapshot
        peers = [lan.add_peer(f"host{n}") for n in range(4)]
        daemon = start_daemon("--mqtt-url", broker.url, "--mqtt-topic-prefix", PREFIX)
        for n, peer in enumerate(peers):
            peer.register(f"Service {n}", "_http._tcp", 8000 + n)
        daemon.wait_for(lambda s: len(applier.devices(s)) == 4, what="four devices")
        peers[0].update("Service 0", "_http._tcp", port=9000)
        peers[1].unregister("Service 1", "_http._tcp")
        peers[2].register("Extra", "_ssh._tcp", 22)
        daemon.wait_for(lambda s: len(applier.devices(s)) == 3 and any(
            len(d["services"]) == 2 for d in applier.devices(s).values()), what="the churn")
        final_sequence = daemon.sequence
        events.wait_for(lambda messages: messages and json.loads(messages[-1]["payload"])["sequence"] == final_sequence,
                        what=f"the event of sequence {final_sequence}")
    finally:
        events.stop()
    payloads = [json.loads(message["payload"]) for message in events.messages]
    assert all(not message["retain"] for message in events.messages), "events are not retained"
    assert payloads[0]["event"] == "snapshot"
    state, sequence = payloads[0]["snapshot"], payloads[0]["sequence"]
    for payload in payloads[1:]:
        if payload["event"] == "snapshot":  # a reconnection: starts over (not expected here)
            state, sequence = payload["snapshot"], payload["sequence"]
            continue
        assert payload["sequence"] == sequence + 1, "one event per changeset, none missing"
        state, sequence = applier.apply(state, payload["changes"]), payload["sequence"]
    assert applier.devices(state) == daemon.devices() == retained_devices(broker)


def test_a_broker_restart_republishes_everything_and_deletes_what_went_meanwhile(lan, start_daemon, broker):
    """The broker keeps its retained messages across its restart (persistence); meanwhile one device went and one
    came. After the reconnection the broker's retained topics equal the snapshot again — within 5 s of the broker
    being back, the issue's goal — and the daemon's Varlink side never waited."""
    alpha, beta = lan.add_peer("alpha"), lan.add_peer("beta")
    alpha.register("Alpha", "_http._tcp", 80)
    beta.register("Beta", "_http._tcp", 80)
    daemon = start_daemon("--mqtt-url", broker.url, "--mqtt-topic-prefix", PREFIX)
    daemon.wait_for(lambda s: len(applier.devices(s)) == 2, what="both devices")
    wait_until(lambda: retained_devices(broker) == daemon.devices(), 10, "the first publication")
    broker.stop()
    beta.unregister("Beta", "_http._tcp")
    gamma = lan.add_peer("gamma")
    gamma.register("Gamma", "_http._tcp", 80)
    daemon.wait_for(lambda s: {d["hostName"] for d in applier.devices(s).values()} == {"alpha.local", "gamma.local"},
                    timeout=20, what="beta gone, gamma there, with the broker down")
    assert {item["hostName"] for item in retained_devices_offline(broker)} >= {"beta.local"}, \
        "the broker kept beta's topic through its restart"
    broker.start()
    took = wait_until(lambda: retained_devices(broker) == daemon.devices(), 40,
                      "the retained devices to equal the snapshot after the broker's restart")
    print(f"broker restart: state republished {took:.2f} s after the broker was back")
    assert any("mqtt disconnected" in line for line in daemon.stderr_lines)


def test_a_broker_absent_at_start_is_retried_until_it_comes(lan, start_daemon, tmp_path):
    """No broker yet: peerscand serves Varlink at once, logs the failure once at warning (then debug), and publishes
    everything within a few seconds of the broker's start (reconnection backs off to at most 4 s)."""
    alpha = lan.add_peer("alpha")
    alpha.register("Alpha", "_http._tcp", 80)
    broker = Broker(lan.scanner_ns, "127.0.0.1", tmp_path / "broker")
    daemon = start_daemon("--mqtt-url", broker.url, "--mqtt-topic-prefix", PREFIX)
    try:
        daemon.wait_serving()
        daemon.wait_for(lambda s: len(applier.devices(s)) == 1, what="alpha, with no broker")
        time.sleep(6)  # several reconnection attempts
        failures = [line for line in daemon.stderr_lines if "mqtt connection failed" in line]
        assert failures and " warning " in failures[0], daemon.stderr_lines[-10:]
        assert sum(" warning " in line for line in failures) == 1, "one warning per outage, the rest at debug"
        broker.start()
        took = wait_until(lambda: retained_devices(broker) == daemon.devices(), 10, "the devices after the broker came")
        print(f"broker absent at start: published {took:.2f} s after the broker started")
        assert any("mqtt connected" in line for line in daemon.stderr_lines)
    finally:
        daemon.stop()
        broker.stop()


def test_a_stopped_broker_delays_nothing_else(lan, start_daemon, broker):
    """A broker that stops reading (SIGSTOP) while devices churn: the Varlink side and the --dump stream keep
    their pace, and when the broker runs again the retained topics catch up with the snapshot."""
    peers = [lan.add_peer(f"host{n}") for n in range(3)]
    peers[0].register("Service 0", "_http._tcp", 80)
    daemon = start_daemon("--mqtt-url", broker.url, "--mqtt-topic-prefix", PREFIX, "--mqtt-keepalive", "60")
    daemon.wait_for(lambda s: len(applier.devices(s)) == 1, what="host0")
    wait_until(lambda: retained_devices(broker) == daemon.devices(), 10, "the first publication")
    broker.process.send_signal(signal.SIGSTOP)
    try:
        for n in (1, 2):
            peers[n].register(f"Service {n}", "_http._tcp", 80)
        peers[0].unregister("Service 0", "_http._tcp")
        daemon.wait_for(lambda s: {d["hostName"] for d in applier.devices(s).values()} == {"host1.local",
                                                                                           "host2.local"},
                        timeout=20, what="the churn, with the broker stopped")
        started = time.monotonic()
        with varlinkclient.client(daemon.socket).open("io.peerscan") as service:
            snapshot = service.GetSnapshot()["snapshot"]
        assert time.monotonic() - started < 1, "GetSnapshot answered at once"
        assert varlinkclient.strip_nulls(applier.devices(snapshot)) == varlinkclient.strip_nulls(daemon.devices())
    finally:
        broker.process.send_signal(signal.SIGCONT)
    took = wait_until(lambda: retained_devices(broker) == daemon.devices(), 20, "the broker to catch up")
    print(f"stopped broker: retained topics equal the snapshot {took:.2f} s after SIGCONT")
    assert daemon.stop() == 0


def retained_devices_offline(broker: Broker) -> list[dict]:
    """The device items in the broker's persistence file, read by starting it on a scratch port: what it retained."""
    scratch = Broker(broker.ns, broker.host, broker.config.parent / "scratch", port=broker.port + 1,
                     persistence=True)
    database = broker.config.parent / "mosquitto.db"
    assert database.exists(), "mosquitto wrote its retained messages at shutdown"
    (scratch.config.parent / "mosquitto.db").write_bytes(database.read_bytes())
    scratch.start()
    try:
        return list(retained_devices(scratch).values())
    finally:
        scratch.stop()


def connect_to_broker(broker_ns: str, lan: TestLAN, number: int) -> str:
    """Joins `lan`'s scanner namespace to the broker namespace by a veth pair of their own (10.99.N.0/24); returns
    the broker's address on it."""
    run("ip", "-n", broker_ns, "link", "add", f"mq{number}", "type", "veth", "peer", "name", "mq0", "netns",
        lan.scanner_ns)
    run("ip", "-n", broker_ns, "addr", "add", f"10.99.{number}.1/24", "dev", f"mq{number}")
    run("ip", "-n", lan.scanner_ns, "addr", "add", f"10.99.{number}.2/24", "dev", "mq0")
    run("ip", "-n", broker_ns, "link", "set", f"mq{number}", "up")
    run("ip", "-n", lan.scanner_ns, "link", "set", "mq0", "up")
    return f"10.99.{number}.1"


def test_two_scanners_on_two_lans_share_one_broker(lan, tmp_path):
    """Each scanner publishes under its own prefix; the device both LANs have (one host name) has one id on both;
    a scanner killed outright shows as `offline` (its last will) within 1.5 keep-alive periods."""
    broker_ns = f"{lan.base}-mq"
    run("ip", "netns", "add", broker_ns)
    other = TestLAN()
    daemons: list[Daemon] = []
    broker = None
    try:
        run("ip", "-n", broker_ns, "link", "set", "lo", "up")
        other.start()
        other.start_avahi()
        first_address = connect_to_broker(broker_ns, lan, 1)
        connect_to_broker(broker_ns, other, 2)
        broker = Broker(broker_ns, "0.0.0.0", tmp_path / "broker")
        broker.start()
        urls = [f"mqtt://{first_address}:1883", "mqtt://10.99.2.1:1883"]
        for n, (network, url) in enumerate(zip((lan, other), urls, strict=True)):
            network.add_peer("shared").register(f"Shared {n}", "_http._tcp", 80)
            network.add_peer(f"only{n}").register(f"Only {n}", "_http._tcp", 80)
            daemons.append(Daemon(network, tmp_path / f"state{n}", "--mqtt-url", url, "--mqtt-topic-prefix",
                                  f"peerscan/site{n}", "--mqtt-keepalive", "5",
                                  socket=network.tmpdir / "io.peerscan"))
        for daemon in daemons:
            daemon.wait_for(lambda s: len(applier.devices(s)) == 2, what="two devices")
        broker_local = Broker(broker_ns, "127.0.0.1", tmp_path / "unused")  # reads through the broker's loopback
        broker_local.port = 1883
        for n, daemon in enumerate(daemons):
            wait_until(lambda: retained_devices(broker_local, f"peerscan/site{n}") == daemon.devices(), 10,
                       f"site{n}'s devices")
        ids = [{item["hostName"]: item_id for item_id, item in retained_devices(broker_local, f"peerscan/site{n}")
                .items()} for n in range(2)]
        assert ids[0]["shared.local"] == ids[1]["shared.local"], "one host name, one id on both scanners"
        assert ids[0]["only0.local"] not in ids[1].values()

        daemons[1].process.kill()
        daemons[1].process.wait()
        offline = {"peerscan/site1/status": "offline"}
        took = wait_until(lambda: broker_local.retained("peerscan/site1/status") == offline, 15,
                          "site1's status to become offline")
        print(f"scanner death: offline after {took:.1f} s (keep-alive 5 s)")
        assert took <= 5 * 1.5 + 2
        assert broker_local.retained("peerscan/site0/status") == {"peerscan/site0/status": "online"}
    finally:
        for daemon in daemons:
            if daemon.process.poll() is None:
                daemon.stop()
        if broker:
            broker.stop()
        other.close()
        subprocess.run(["ip", "netns", "del", broker_ns], capture_output=True)


def test_bad_mqtt_settings_are_refused_with_a_clear_error(lan, tmp_path):
    peerscand = str(__import__("conftest").PEERSCAND)
    for argv, message in [
        (["--mqtt-url", "http://broker"], "expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"),
        (["--mqtt-home-assistant"], "The --mqtt-* options need --mqtt-url."),
        (["--mqtt-url", "mqtt://b", "--mqtt-ca-file", "/x"], "need an mqtts:// URL"),
        (["--mqtt-url", "mqtt://b", "--mqtt-topic-prefix", "a/#"], "expected a topic without wildcards"),
    ]:
        result = subprocess.run([peerscand, *argv], capture_output=True, text=True, timeout=10)
        assert result.returncode == 64 and message in result.stderr, (argv, result.stderr)
    result = subprocess.run([peerscand, "--mqtt-url", "mqtt://127.0.0.1:1", "--mqtt-credentials",
                             str(tmp_path / "missing"), "--state-directory", str(tmp_path),
                             "--socket", str(tmp_path / "s")], capture_output=True, text=True, timeout=10)
    assert result.returncode == 1 and "mqtt unusable" in result.stderr and "missing" in result.stderr, result.stderr


def make_certificates(directory: Path) -> None:
    """A test CA, a server certificate for 127.0.0.1 and a client certificate, with openssl."""
    def openssl(*argv: str) -> None:
        subprocess.run(["openssl", *argv], cwd=directory, check=True, capture_output=True)
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=peerscan test CA",
            "-keyout", "ca.key", "-out", "ca.pem")
    for name, extension in [("server", "subjectAltName=IP:127.0.0.1"), ("client", "extendedKeyUsage=clientAuth")]:
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}", "-keyout", f"{name}.key",
                "-out", f"{name}.csr")
        (directory / f"{name}.ext").write_text(extension + "\n")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-days", "2", "-extfile", f"{name}.ext", "-out", f"{name}.pem")


def test_tls_with_a_ca_file_a_client_certificate_and_credentials_from_systemd(lan, start_daemon, tmp_path):
    """mqtts:// with --mqtt-ca-file against a broker that wants a client certificate and a password; the password
    file comes as systemd hands credentials over ($CREDENTIALS_DIRECTORY/mqtt), never on the command line."""
    directory = tmp_path / "tls"
    directory.mkdir()
    make_certificates(directory)
    passwords = directory / "passwords"
    subprocess.run(["mosquitto_passwd", "-c", "-b", str(passwords), "scanner", "s3cret"], check=True)
    credentials = tmp_path / "credentials"
    credentials.mkdir()
    (credentials / "mqtt").write_text("scanner\ns3cret\n")
    broker = Broker(lan.scanner_ns, "127.0.0.1", tmp_path / "broker", port=8883)
    broker.config.write_text(
        f"user root\nlistener 8883 127.0.0.1\nallow_anonymous false\npassword_file {passwords}\n"
        f"cafile {directory}/ca.pem\ncertfile {directory}/server.pem\nkeyfile {directory}/server.key\n"
        f"require_certificate true\nlog_dest file {broker.log}\n")
    broker.process = subprocess.Popen(["ip", "netns", "exec", lan.scanner_ns, "mosquitto", "-c", str(broker.config)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        alpha = lan.add_peer("alpha")
        alpha.register("Alpha", "_http._tcp", 80)
        tls = ["--mqtt-url", "mqtts://127.0.0.1:8883", "--mqtt-ca-file", f"{directory}/ca.pem",
               "--mqtt-topic-prefix", PREFIX]
        os.environ["CREDENTIALS_DIRECTORY"] = str(credentials)
        try:
            daemon = start_daemon(*tls, "--mqtt-certificate", f"{directory}/client.pem",
                                  "--mqtt-key", f"{directory}/client.key")
        finally:
            del os.environ["CREDENTIALS_DIRECTORY"]
        daemon.wait_for(lambda s: len(applier.devices(s)) == 1, what="alpha")
        read = ["ip", "netns", "exec", lan.scanner_ns, "mosquitto_sub", "-h", "127.0.0.1", "-p", "8883",
                "--cafile", f"{directory}/ca.pem", "--cert", f"{directory}/client.pem", "--key",
                f"{directory}/client.key", "-u", "scanner", "-P", "s3cret", "-t", f"{PREFIX}/devices/+", "-F", "%j",
                "--retained-only", "-W", "1"]

        def retained() -> dict:
            lines = subprocess.run(read, capture_output=True, text=True, timeout=15).stdout.splitlines()
            return {json.loads(line)["topic"].rsplit("/", 1)[1]: json.loads(json.loads(line)["payload"])
                    for line in lines}
        wait_until(lambda: retained() == daemon.devices(), 15, "alpha over TLS")
        daemon.stop()

        # Without the client certificate the broker refuses the handshake: logged, retried, never fatal.
        other = start_daemon(*tls, "--mqtt-credentials", str(credentials / "mqtt"))
        wait_until(lambda: any("mqtt connection failed" in line or "mqtt disconnected" in line
                               for line in other.stderr_lines), 15, "the refused handshake to be logged")
        assert other.process.poll() is None and not any("mqtt connected" in line for line in other.stderr_lines)
    finally:
        broker.stop()


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGKILL"])
def test_a_daemon_restart_deletes_and_empties_no_retained_topic(lan, start_daemon, broker, stop):
    """A restarted peerscand compares the broker's retained topics with its first settled snapshot, not an empty one:
    no device or discovery topic is emptied or deleted across the restart (Home Assistant would remove and re-create
    every entity, losing what its user changed) — the only visible effect is the status while it is down."""
    alpha, beta = lan.add_peer("alpha"), lan.add_peer("beta")
    alpha.register("Alpha", "_http._tcp", 80)
    beta.register("Beta", "_ipp._tcp", 631)
    arguments = ("--mqtt-url", broker.url, "--mqtt-topic-prefix", PREFIX, "--mqtt-home-assistant")
    daemon = start_daemon(*arguments)
    daemon.wait_for(lambda s: len(applier.devices(s)) == 2, what="both devices")
    wait_until(lambda: retained_devices(broker) == daemon.devices(), 10, "the first publication")
    configs = broker.retained("homeassistant/device_tracker/+/+/config")
    assert len(configs) == 2
    watch = Subscriber(broker, "#")
    try:
        time.sleep(0.3)  # subscribed (the retained messages it gets first are not the restart's)
        seen = len(watch.messages)
        if stop == "SIGKILL":
            daemon.process.send_signal(signal.SIGKILL)
            daemon.process.wait(timeout=10)
        else:
            assert daemon.stop() == 0
        restarted = start_daemon(*arguments)
        restarted.wait_for(lambda s: len(applier.devices(s)) == 2, what="both devices after the restart")
        wait_until(lambda: broker.retained(f"{PREFIX}/status") == {f"{PREFIX}/status": "online"}, 15,
                   "the status online again")
        wait_until(lambda: retained_devices(broker) == restarted.devices(), 10, "the retained devices after it")
        time.sleep(1)  # what the restarted mirror publishes after comparing with the broker's retained topics
    finally:
        watch.stop()
    during = watch.messages[seen:]
    emptied = [message["topic"] for message in during
               if message["topic"] != f"{PREFIX}/events" and not message["payload"]]
    assert emptied == [], f"topics emptied across the restart: {emptied}"
    assert broker.retained("homeassistant/device_tracker/+/+/config") == configs, "the discovery configs as they were"
    statuses = [message["payload"] for message in during if message["topic"] == f"{PREFIX}/status"]
    assert statuses[0] == "offline" and statuses[-1] == "online", statuses
