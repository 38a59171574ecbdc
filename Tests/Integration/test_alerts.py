"""Alerts on the test LAN (issue 38), peerscand's side: a Python client plays the sender (FollowAlerts and AckAlert
over PyPI varlink) and checks what peerscand decides and keeps — an important device's offline alert and a plain
one's none, a new device's alert with its mDNS name, a flap inside the window one alert, alerts not acknowledged
offered again after a restart, in order, and none once acknowledged, and quiet hours holding an alert — also over a
restart of peerscand, delivered by the real peerscan-alerts to a receiver (testkit/receiver.py). `peerscanctl notify
test` is the readiness check: it answers once the follower is there."""

from __future__ import annotations

import threading
import time
import uuid

import varlink
from test_alerts_sender import Sender as AlertsProcess
from test_registry import ctl

from testclient import varlinkclient
from testkit.receiver import Receiver
from testkit.waiting import wait_until
from testlan.lan import real_oui_mac

from test_scanner import MAC_NAMESPACE, by_mac, log_lines, start_scanner

DESTINATION = "json://receiver.test/hook"
ALERTS = ("--alert-name-wait", "3")  # the silent hosts' new-device alerts go 3 s after they appear


class Sender:
    """Follows the alerts for DESTINATION in a thread, recording each; acknowledges each as `sent` if `acks`."""

    def __init__(self, socket, *, acks: bool) -> None:
        self.socket = socket
        self.acks = acks
        self.alerts: list[dict] = []
        self.ended: BaseException | None = None
        self.condition = threading.Condition()
        self.interface = varlinkclient.client(socket).open("io.peerscan", namespaced=False)
        self.thread = threading.Thread(target=self._run, daemon=True, name="alert-sender")
        self.thread.start()

    def _run(self) -> None:
        try:
            for reply in self.interface.FollowAlerts(_more=True, destinations=[DESTINATION]):
                alert = reply["alert"]
                if self.acks:
                    with varlinkclient.client(self.socket).open("io.peerscan", namespaced=False) as acking:
                        acking.AckAlert(id=alert["id"], destination=DESTINATION, outcome="sent", answer="200 OK")
                with self.condition:
                    self.alerts.append(alert)
                    self.condition.notify_all()
        except BaseException as error:  # noqa: BLE001 - recorded for the test to see
            with self.condition:
                self.ended = error
                self.condition.notify_all()

    def wait_for(self, predicate, timeout: float = 30, what: str = "alerts") -> list[dict]:
        deadline = time.monotonic() + timeout
        with self.condition:
            while not predicate(self.alerts):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"no {what} within {timeout} s: {self.alerts} (ended: {self.ended})")
                self.condition.wait(remaining)
            return list(self.alerts)

    def close(self) -> None:
        try:
            self.interface.close()
        except OSError:
            pass
        self.thread.join(timeout=5)


def follow(lan, daemon, *, acks: bool) -> Sender:
    """A sender, once peerscand has it: `peerscanctl notify test` answers (NoAlertSender, exit 69, until then)."""
    daemon.wait_serving()
    sender = Sender(daemon.socket, acks=acks)
    deadline = time.monotonic() + 20
    while True:
        done = ctl(lan, daemon, "notify", "test", "--timeout", "5", check=False)
        if done.returncode != 69 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    if acks:
        assert done.returncode == 0 and done.stdout.strip() == f"{DESTINATION}  sent  200 OK", done
    return sender


def of(alerts: list[dict], event: str, device: str | None = None) -> list[dict]:
    return [a for a in alerts if a["event"] == event and (device is None or a.get("device") == device)]


def test_an_important_devices_offline_alerts_a_plain_ones_not_a_flap_is_one_and_a_new_device_has_its_name(
        lan, start_daemon):
    daemon = start_scanner(lan, start_daemon, *ALERTS)
    sender = follow(lan, daemon, acks=True)
    plug = lan.add_host("plug", mac=real_oui_mac(0x60))
    lamp = lan.add_host("lamp", mac=real_oui_mac(0x61))
    phone = lan.add_peer("phone")
    phone.register("Phone", "_companion-link._tcp", 49152)
    plug_id, lamp_id = (str(uuid.uuid5(MAC_NAMESPACE, host.mac)) for host in (plug, lamp))
    daemon.wait_for(lambda s: by_mac(s, plug.mac) and by_mac(s, lamp.mac), what="the plug and the lamp")
    ctl(lan, daemon, "set", plug.mac, "--important")

    # The phone: found by its MAC or its mDNS records first, its alert waits for its name and carries it.
    alerts = sender.wait_for(lambda a: any(x["fields"].get("host") == "phone.local" for x in of(a, "new-device")),
                             what="the phone's new-device alert")
    new_phone = [x for x in of(alerts, "new-device") if x["fields"].get("host") == "phone.local"]
    assert len(new_phone) == 1 and new_phone[0]["title"] == "New device: Phone", new_phone
    # The silent hosts have no name to wait for: theirs go after --alert-name-wait with their vendor.
    alerts = sender.wait_for(lambda a: {plug_id, lamp_id} <= {x.get("device") for x in of(a, "new-device")},
                             what="the plug's and the lamp's new-device alerts")
    assert all(x["fields"].get("vendor") for x in of(alerts, "new-device") if x.get("device") in (plug_id, lamp_id))

    # Both go silent: the important plug alerts offline, the plain lamp does not.
    plug.silence()
    lamp.silence()
    daemon.wait_for(lambda s: by_mac(s, plug.mac)["online"] is False and by_mac(s, lamp.mac)["online"] is False,
                    timeout=60, what="both offline")
    alerts = sender.wait_for(lambda a: of(a, "offline", plug_id), what="the plug's offline alert")
    offline = of(alerts, "offline", plug_id)[0]
    assert offline["priority"] == "high" and offline["fields"]["reason"].startswith("unanswered asked=arp"), offline
    assert offline["link"] == f"/devices/{plug_id}"

    # Back within the flap window (5 min): folded into the offline alert.
    plug.unsilence()
    lamp.unsilence()
    daemon.wait_for(lambda s: by_mac(s, plug.mac)["online"] is True and by_mac(s, lamp.mac)["online"] is True,
                    timeout=60, what="both online again")
    # A test alert is written after whatever the flips decided: once it is here, nothing else is on its way.
    assert ctl(lan, daemon, "notify", "test", "--timeout", "5").returncode == 0
    alerts = sender.wait_for(lambda a: len(of(a, "test")) >= 2, what="the second test alert")
    presence = [x for x in alerts if x["event"] in ("offline", "online")]
    assert [(x["event"], x["device"]) for x in presence] == [("offline", plug_id)], presence
    assert not [x for x in alerts if x.get("device") == lamp_id and x["event"] != "new-device"]
    sender.close()


def test_alerts_not_acknowledged_are_offered_again_after_a_restart_in_order_and_none_once_acknowledged(
        lan, start_daemon):
    daemon = start_scanner(lan, start_daemon, *ALERTS)
    sender = follow(lan, daemon, acks=False)
    hosts = [lan.add_host(name, mac=real_oui_mac(0x70 + index)) for index, name in enumerate(("tv", "nas", "cam"))]
    alerts = sender.wait_for(lambda a: len(of(a, "new-device")) >= 3, what="three new-device alerts")
    first = [a["id"] for a in alerts if a["event"] == "new-device"]
    sender.close()
    assert daemon.stop() == 0

    second = start_scanner(lan, start_daemon, *ALERTS)
    second.wait_for(lambda s: all(by_mac(s, host.mac) for host in hosts), what="the hosts again")
    second.wait_serving()
    replayed = Sender(second.socket, acks=True)
    alerts = replayed.wait_for(lambda a: len(of(a, "new-device")) >= 3, what="the three again")
    again = [a["id"] for a in alerts if a["event"] == "new-device"]
    assert again == first, "offered again, in the order they were decided"
    # Acknowledged now (each before it was recorded): a new follower gets none of them before its test alert.
    replayed.close()
    third = follow(lan, second, acks=True)
    alerts = third.wait_for(lambda a: of(a, "test"), what="the test alert")
    assert [a["event"] for a in alerts] == ["test"], alerts
    third.close()


def test_the_alert_methods_are_for_root_and_the_control_group_and_rules_take_known_events(
        lan, start_varlink_daemon, socket_path, control_group):
    group, gid = control_group
    start_varlink_daemon("--control-group", group)
    calls = [
        {"method": "io.peerscan.FollowAlerts", "parameters": {"destinations": [DESTINATION]}, "more": True},
        {"method": "io.peerscan.ListAlertRules"},
        {"method": "io.peerscan.SendTestAlert", "parameters": {}},
    ]
    _, replies = varlinkclient.call_as(socket_path, calls)
    assert [reply.get("error") for reply in replies] == ["io.peerscan.PermissionDenied"] * 3, replies
    _, replies = varlinkclient.call_as(socket_path, calls[1:], groups=[gid])
    assert replies[0]["parameters"]["rules"] == [], replies
    assert replies[1]["error"] == "io.peerscan.NoAlertSender", replies
    with varlinkclient.client(socket_path).open("io.peerscan", namespaced=False) as interface:
        try:
            interface.SetAlertRule(device=None, events=["sometimes"])
        except varlink.VarlinkError as error:
            assert error.error() == "org.varlink.service.InvalidParameter"
        else:
            raise AssertionError("an unknown event was taken")
        interface.SetAlertRule(device=None, events=["new-device", "evil-twin"])
        assert interface.ListAlertRules()["rules"] == [{"events": ["new-device", "evil-twin"]}]


def test_quiet_hours_hold_an_alert_until_they_end(lan, start_daemon):
    # Quiet from this minute to the next (local time, as peerscand reads it): at most a minute's wait.
    now = time.localtime()
    if now.tm_sec > 45:  # too close to the end: the alert could be decided after it
        time.sleep(61 - now.tm_sec)
        now = time.localtime()
    start, end = time.strftime("%H:%M", now), time.strftime("%H:%M", time.localtime(time.time() + 60))
    ends_at = (int(time.time()) // 60 + 1) * 60  # the next minute's start
    daemon = start_scanner(lan, start_daemon, "--alert-name-wait", "0", "--alert-quiet-hours", f"{start}-{end}")
    sender = follow(lan, daemon, acks=True)  # test alerts are not held: asked for, they go at once
    lamp = lan.add_host("lamp", mac=real_oui_mac(0x63))
    lamp_id = str(uuid.uuid5(MAC_NAMESPACE, lamp.mac))
    daemon.wait_for(lambda s: by_mac(s, lamp.mac), what="the lamp")
    time.sleep(2)
    assert not of(sender.alerts, "new-device", lamp_id), "held while quiet"
    alerts = sender.wait_for(lambda a: of(a, "new-device", lamp_id), timeout=75, what="the lamp's alert after them")
    assert time.time() >= ends_at - 1, "it went when the quiet hours ended"
    assert len(of(alerts, "new-device", lamp_id)) == 1
    sender.close()


def test_an_alert_held_by_quiet_hours_survives_a_restart_and_reaches_the_receiver_once_after_they_end(
        lan, start_daemon, tmp_path):
    # Quiet from this minute for two (local time, as peerscand reads it): a minute at least for a restart within.
    now = time.time()
    start, end = time.strftime("%H:%M", time.localtime(now)), time.strftime("%H:%M", time.localtime(now + 120))
    ends_at = (int(now) // 60 + 2) * 60
    options = ("--alert-name-wait", "0", "--alert-quiet-hours", f"{start}-{end}")
    host = lan.add_host("receiver")
    receiver = Receiver(host.namespace, host.ipv4)
    webhook = f"json://{host.ipv4}:8080/hook"
    daemon = start_scanner(lan, start_daemon, *options)
    sender = AlertsProcess(lan, daemon.socket, tmp_path, notify=[webhook], notify_file=[])
    try:
        wait_until(lambda: ctl(lan, daemon, "notify", "test", "--timeout", "10", check=False).returncode == 0,
                   timeout=30, what="the sender following (test alerts are not held)", details=sender.text)
        lamp = lan.add_host("lamp", mac=real_oui_mac(0x64))
        lamp_id = str(uuid.uuid5(MAC_NAMESPACE, lamp.mac))
        daemon.wait_for(lambda s: by_mac(s, lamp.mac), what="the lamp")
        queued = log_lines(daemon, "alert queued", containing=lamp_id, timeout=10)
        held = [line for line in queued if lamp_id in line]
        assert len(held) == 1 and "not.before=" in held[0], queued  # in the outbox at once, with its end
        assert time.time() < ends_at - 5, "decided well within the quiet hours"

        assert daemon.stop() == 0  # SIGTERM during the quiet hours, started again on the same state
        daemon = start_scanner(lan, start_daemon, *options)
        daemon.wait_serving()
        assert time.time() < ends_at, "restarted within the quiet hours"
        assert not [a for a in alerts_at(receiver) if a["event"] == "new-device"], "held while quiet"

        wait_until(lambda: any(a["event"] == "new-device" and a["device"] == lamp_id for a in alerts_at(receiver)),
                   timeout=ends_at - time.time() + 60, what="the lamp's alert after the quiet hours",
                   details=sender.text)
        assert time.time() >= ends_at - 1, "it went when the quiet hours ended"
        time.sleep(2)  # a second delivery would come now
        lamps = [a for a in alerts_at(receiver) if a["device"] == lamp_id]
        assert [a["event"] for a in lamps] == ["new-device"], lamps
    finally:
        sender.stop()
        receiver.close()


def alerts_at(receiver: Receiver) -> list[dict]:
    """The alerts the receiver accepted, in the order they came."""
    return [request.json for request in receiver.received("/hook", status=200)]
