"""Alerts end to end (issue 38, docs/alerts.md): the real peerscand decides, the real peerscan-alerts delivers, a
webhook receiver in a host namespace of its own (testkit/receiver.py) records every request.

Checked: `peerscanctl notify test` prints the receiver's answer; an important device's offline alert reaches the
receiver once, with the documented payload; the receiver gone for a minute while the device comes back and peerscand
restarts → once it is back, every alert arrives once, in order per device, and the outbox is empty.
"""

from __future__ import annotations

import time
import uuid

import pytest
from test_alerts_sender import Sender
from test_registry import ctl

from testclient import varlinkclient
from testkit.receiver import Receiver
from testkit.waiting import wait_until
from testlan.lan import real_oui_mac

from test_scanner import MAC_NAMESPACE, by_mac, start_scanner

# New-device alerts 1 s after the device appears; online alerts within a second of an offline one are not folded.
ALERTS = ("--alert-name-wait", "1", "--alert-flap-window", "1")


def alerts_at(receiver: Receiver) -> list[dict]:
    """The alerts the receiver accepted, in the order they came."""
    return [request.json for request in receiver.received("/hook", status=200)]


@pytest.fixture
def stack(lan, start_daemon, tmp_path):
    host = lan.add_host("receiver")
    receiver = Receiver(host.namespace, host.ipv4)
    webhook = f"json://{host.ipv4}:8080/hook"
    daemon = start_scanner(lan, start_daemon, *ALERTS)
    sender = Sender(lan, daemon.socket, tmp_path, notify=[webhook], notify_file=[])
    try:
        yield daemon, receiver, sender, webhook
    finally:
        sender.stop()
        receiver.close()


def test_notify_test_answers_and_an_important_devices_alerts_survive_a_receiver_outage_and_a_restart(
        lan, start_daemon, stack):
    daemon, receiver, sender, webhook = stack
    # `notify test` answers once the sender follows (exit 69 while no sender does), with the receiver's answer.
    wait_until(lambda: ctl(lan, daemon, "notify", "test", "--timeout", "10", check=False).returncode != 69,
               timeout=30, what="the sender following", details=sender.text)
    answered = ctl(lan, daemon, "notify", "test", "--timeout", "10")
    destination, outcome, answer = answered.stdout.strip().split(None, 2)
    assert (destination, outcome) == (webhook, "sent") and "200" in answer, answered.stdout

    plug = lan.add_host("plug", mac=real_oui_mac(0x62))
    plug_id = str(uuid.uuid5(MAC_NAMESPACE, plug.mac))
    daemon.wait_for(lambda s: by_mac(s, plug.mac), what="the plug")
    ctl(lan, daemon, "set", plug.mac, "--important")
    wait_until(lambda: any(a["event"] == "new-device" and a["device"] == plug_id for a in alerts_at(receiver)),
               timeout=30, what="the plug's new-device alert at the receiver", details=sender.text)

    plug.silence()
    wait_until(lambda: any(a["event"] == "offline" and a["device"] == plug_id for a in alerts_at(receiver)),
               timeout=90, what="the plug's offline alert at the receiver", details=sender.text)
    offline = next(a for a in alerts_at(receiver) if a["event"] == "offline")
    assert set(offline) == {"id", "event", "created", "device", "title", "message", "priority", "tags", "link",
                            "fields"}, offline
    assert offline["priority"] == "high" and offline["fields"]["reason"].startswith("unanswered"), offline

    # The receiver goes for a minute; meanwhile the plug comes back (an online alert) and peerscand restarts.
    receiver.vanish()
    gone = time.monotonic()
    plug.unsilence()
    daemon.wait_for(lambda s: by_mac(s, plug.mac)["online"] is True, timeout=60, what="the plug online again")
    wait_until(lambda: " alert failed " in sender.text(), timeout=30, what="a failed delivery",
               details=lambda: sender.text() + "\n".join(line for line in daemon.stderr_lines if "alert" in line))
    assert daemon.stop() == 0
    daemon = start_scanner(lan, start_daemon, *ALERTS)
    time.sleep(max(0.0, 60 - (time.monotonic() - gone)))
    receiver.come_back()
    wait_until(lambda: any(a["event"] == "online" and a["device"] == plug_id for a in alerts_at(receiver)),
               timeout=120, what="the plug's online alert after the outage", details=sender.text)

    received = alerts_at(receiver)
    ids = [a["id"] for a in received]
    assert len(ids) == len(set(ids)), "no alert arrives twice"
    plug_events = [a["event"] for a in received if a["device"] == plug_id]
    assert plug_events == ["new-device", "offline", "online"], plug_events
    log = sender.text()
    assert " alert sent " in log and "retry.in=" in log
    # GetStatistics counts what the receiver took since the restart (peerscan-web's peerscan_alerts_total).
    with varlinkclient.client(daemon.socket).open("io.peerscan", namespaced=False) as interface:
        counts = interface.GetStatistics()["alerts"]
    assert {"destination": webhook, "outcome": "sent", "count": 1} in counts, counts
