"""peerscan-alerts (docs/alerts.md, the sender) on the test LAN: it runs in the scanner namespace, follows a fake
peerscand's outbox (testkit/fakeoutbox.py: FollowAlerts and AckAlert as the interface fixes them), and delivers to a
webhook receiver in a host namespace of its own (testkit/receiver.py) as json:// and ntfy://.

Checked: every alert arrives once per destination, in order; ntfy's request is its JSON publish; the receiver gone
for 15 s (and the fake peerscand restarted meanwhile) → the alerts are retried and arrive once after it is back; a 400
is acknowledged as rejected and not retried; the token in a URL is never in the log; with ``--digest``, a window's
alerts are one request, each acknowledged with its answer, and a test alert goes at once.
"""

from __future__ import annotations

import contextlib
import time

import pytest

from testkit.fakeoutbox import FakeOutbox
from testkit.receiver import Receiver
from testkit.waiting import wait_notified, wait_until
from testlan.lan import TestLAN

ALERTS = str(__import__("conftest").PEERSCAND.with_name("peerscan-alerts"))
TOKEN = "tk_integrationsecret0123"
LINK_BASE = "http://peerscan.lan:8737"


class Sender:
    """peerscan-alerts in the scanner namespace, its log in a file."""

    def __init__(self, lan: TestLAN, socket_path, tmp_path, notify: list[str], notify_file: list[str],
                 options: tuple[str, ...] = ()) -> None:
        self.log_path = tmp_path / "peerscan-alerts.log"
        self.log = open(self.log_path, "w")
        urls = tmp_path / "notify"
        urls.write_text("# the destinations with secrets\n\n" + "\n".join(notify_file) + "\n")
        argv = [ALERTS, "--socket", str(socket_path), "--notify-file", str(urls), "--link-base", LINK_BASE]
        for url in notify:
            argv += ["--notify", url]
        self.process = lan.popen_in_scanner([*argv, *options, "--log-level", "debug"], stdout=self.log,
                                            stderr=self.log)

    def text(self) -> str:
        self.log.flush()
        return self.log_path.read_text()

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=20)
        self.log.close()


@contextlib.contextmanager
def following(lan: TestLAN, receiver: Receiver, tmp_path, destinations: list[str], notify: list[str],
              notify_file: list[str], options: tuple[str, ...] = ()):
    """A fake peerscand's outbox for `destinations` and peerscan-alerts following it (once it does); both stopped
    afterwards, and the receiver closed."""
    outbox = FakeOutbox(lan.tmpdir / "io.peerscan", destinations=destinations).start()
    sender = Sender(lan, outbox.path, tmp_path, notify=notify, notify_file=notify_file, options=options)
    try:
        wait_until(lambda: outbox.follow_calls, timeout=30, what="peerscan-alerts following the outbox",
                   give_up=lambda: sender.process.poll() is not None and f"exited: {sender.text()}")
        yield outbox, sender
    finally:
        sender.stop()
        receiver.close()
        outbox.close()


@pytest.fixture
def setup(tmp_path):
    with TestLAN() as lan:
        host = lan.add_host("receiver")
        receiver = Receiver(host.namespace, host.ipv4)
        webhook = f"json://{host.ipv4}:8080/hook"
        ntfy_name = f"ntfy://{host.ipv4}:8080/alerts"
        ntfy = f"ntfy://{TOKEN}@{host.ipv4}:8080/alerts"
        with following(lan, receiver, tmp_path, [webhook, ntfy_name], notify=[webhook], notify_file=[ntfy]) as (
                outbox, sender):
            yield outbox, receiver, sender, webhook, ntfy_name


def wait_acks(outbox: FakeOutbox, count: int, timeout: float, sender: Sender) -> None:
    """Waits until the outbox has ``count`` acknowledgements (the fake notifies its lock at each)."""
    with outbox.lock:
        wait_notified(outbox.lock, lambda: len(outbox.acks) >= count, timeout=timeout, what=f"{count} acks",
                      details=sender.text)


def delivered(receiver: Receiver, path: str) -> list[str]:
    """The alert ids the receiver accepted on ``path``, in order."""
    return [r.headers.get("x-peerscan-alert-id") for r in receiver.received(path, status=200)]


def test_every_alert_arrives_once_in_order_and_secrets_never_reach_the_log(setup):
    outbox, receiver, sender, webhook, ntfy_name = setup
    assert outbox.follow_calls[0] == [webhook, ntfy_name], "FollowAlerts names the destinations without secrets"
    alerts = [outbox.push(outbox.alert(event, device=device, name=f"host-{device}"))
              for device, event in [("d1", "offline"), ("d2", "new-device"), ("d1", "online"), ("d2", "offline")]]
    ids = [alert["id"] for alert in alerts]
    wait_acks(outbox, 2 * len(alerts), timeout=30, sender=sender)
    assert delivered(receiver, "/hook") == ids
    assert delivered(receiver, "/") == ids, "ntfy's JSON publish goes to the server's root"
    assert all(ack["outcome"] == "sent" for ack in outbox.acks)

    webhook_body = receiver.received("/hook")[0].json
    assert set(webhook_body) == {"id", "event", "created", "device", "title", "message", "priority", "tags", "link",
                                 "fields"}
    assert webhook_body["link"] == f"{LINK_BASE}/devices/d1" and webhook_body["fields"] == {"name": "host-d1"}
    ntfy = receiver.received("/")[0]
    assert ntfy.headers["authorization"] == f"Bearer {TOKEN}"
    assert ntfy.headers["content-type"] == "application/json"
    assert ntfy.json == {"topic": "alerts", "title": alerts[0]["title"], "message": alerts[0]["message"],
                         "priority": 4, "tags": ["offline"], "click": f"{LINK_BASE}/devices/d1"}
    log = sender.text()
    assert log.count(" alert sent ") == 2 * len(alerts), log
    assert TOKEN not in log and "integrationsecret" not in log


def test_a_receiver_gone_for_a_while_gets_every_alert_once_after(setup):
    # 15 s here (the sender's queues and backoff); test_alerts_end_to_end takes the receiver away for a minute.
    outbox, receiver, sender, webhook, ntfy_name = setup
    receiver.vanish()
    alerts = [outbox.push(outbox.alert("offline", device=f"d{n}")) for n in range(3)]
    wait_until(lambda: sender.text().count(" alert failed ") >= 4, timeout=30, what="the failures logged")
    outbox.restart(down=2)  # peerscand restarted meanwhile: it offers the unacknowledged alerts again
    time.sleep(13)
    assert not outbox.acks, "nothing acknowledged while the receiver is gone"
    receiver.come_back()
    # The next try comes within the backoff's longest wait so far (16 s after 15 s of failures).
    wait_acks(outbox, 6, timeout=60, sender=sender)
    ids = [alert["id"] for alert in alerts]
    assert delivered(receiver, "/hook") == ids and delivered(receiver, "/") == ids, "once each, in order"
    assert len(outbox.follow_calls) >= 2, "followed again after the restart"
    assert outbox.unacknowledged() == 0
    log = sender.text()
    assert "retry.in=" in log and TOKEN not in log


def test_a_refusal_is_acknowledged_as_rejected_and_not_retried(setup):
    outbox, receiver, sender, webhook, ntfy_name = setup
    receiver.answer(400, count=1)
    refused = outbox.push(outbox.alert("offline", device="d1"), destinations=[webhook])
    accepted = outbox.push(outbox.alert("online", device="d1"), destinations=[webhook])
    wait_acks(outbox, 2, timeout=30, sender=sender)
    assert [(a["id"], a["outcome"]) for a in outbox.acks] == [(refused["id"], "rejected"), (accepted["id"], "sent")]
    assert outbox.acks[0]["answer"].startswith("HTTP 400")
    assert [r.status for r in receiver.received("/hook")] == [400, 200], "the refused one is not tried again"
    assert " alert failed " in sender.text()


def test_a_receiver_that_hangs_times_out_and_gets_the_alert_when_it_answers_again(setup):
    outbox, receiver, sender, webhook, ntfy_name = setup
    receiver.hang()
    alert = outbox.push(outbox.alert("offline", device="d1"), destinations=[webhook])
    # The transport's idle limit (30 s without a byte) ends the hung request: a transient failure, tried again.
    wait_until(lambda: " alert failed " in sender.text(), timeout=60, what="the hung request failed")
    assert not outbox.acks
    receiver.answer(200)
    wait_acks(outbox, 1, timeout=30, sender=sender)
    assert outbox.acks[0]["id"] == alert["id"] and outbox.acks[0]["outcome"] == "sent"
    assert delivered(receiver, "/hook") == [alert["id"]]


@pytest.fixture
def digest_setup(tmp_path):
    with TestLAN() as lan:
        host = lan.add_host("receiver")
        receiver = Receiver(host.namespace, host.ipv4)
        webhook = f"json://{host.ipv4}:8080/hook"
        with following(lan, receiver, tmp_path, [webhook], notify=[webhook], notify_file=[],
                       options=("--digest", "5s")) as (outbox, sender):
            yield outbox, receiver, sender


def test_a_digest_is_one_request_for_a_windows_alerts_each_acknowledged_after_it(digest_setup):
    outbox, receiver, sender = digest_setup
    alerts = [outbox.push(outbox.alert(event, device=device, name=f"host-{device}"))
              for device, event in [("d1", "offline"), ("d2", "new-device"), ("d1", "online")]]
    test = outbox.push(outbox.alert("test"))
    wait_acks(outbox, 4, timeout=60, sender=sender)
    ids = [alert["id"] for alert in alerts]
    requests = receiver.received("/hook")
    assert len(requests) == 2, "the test alert, then one digest of three"
    assert requests[0].json["id"] == test["id"], "the test alert goes at once, not in the window"
    digest = requests[1]
    body = digest.json
    assert body["event"] == "digest" and body["title"] == "peerscan: 3 alerts"
    assert [alert["id"] for alert in body["alerts"]] == ids, "every alert in full, oldest first"
    assert body["alerts"][0]["link"] == f"{LINK_BASE}/devices/d1" and body["link"] == f"{LINK_BASE}/"
    assert body["priority"] == "high" and body["message"].count("\n") == 2
    assert digest.headers["x-peerscan-alert-id"] == body["id"] and body["id"] not in ids
    digest_acks = [ack for ack in outbox.acks if ack["id"] in ids]
    assert [ack["id"] for ack in digest_acks] == ids
    assert all(ack["outcome"] == "sent" and ack["answer"].startswith("HTTP 200") for ack in digest_acks)
    assert outbox.unacknowledged() == 0
    log = sender.text()
    assert log.count(" alert sent ") == 4, log
    assert log.count(f"digest={body['id']}") == 3, "one line per alert of the digest, with its key"
