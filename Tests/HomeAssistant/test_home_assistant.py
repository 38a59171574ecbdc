"""peerscand's Home Assistant discovery judged by a real Home Assistant Core (issue 22): what Home Assistant's own
entity and device registries and its states show while peerscand scans a test LAN, publishes to a mosquitto broker
with `--mqtt-home-assistant`, restarts (SIGTERM, SIGKILL) and forgets a device — and that Home Assistant's log has no
warning or error from the MQTT integration or the template engine about our payloads.

The registries are read over Home Assistant's websocket API (`config/entity_registry/list`,
`config/device_registry/list`: the registries themselves, which `.storage` only mirrors after a delay), and their
changes are watched as they happen (`entity_registry_updated`, `device_registry_updated` events): Home Assistant
restores a removed entity's registry id and `created_at` when the same unique_id comes back (its `deleted_entities`),
so a remove and re-create shows in those events, in the entity id and name the user gave, and in the log
(`Removing component: …`), not in the ids.

Run as root after `swift build`: `make ha-test` (installs Home Assistant into /var/cache/peerscan/home-assistant/
first: see scripts/install-home-assistant).
"""

from __future__ import annotations

import re
import subprocess
import time

import pytest

from testclient import applier
from testlan.lan import real_oui_mac
from Tests.Integration.test_scanner import PEERSCANCTL, by_mac, start_scanner

from conftest import HomeAssistant

PREFIX = "peerscan/test"
MQTT = ("--mqtt-topic-prefix", PREFIX, "--mqtt-home-assistant", "--mqtt-keepalive", "5")
MARKER_TOPIC = "peerscan-test/marker"
# What Home Assistant logs when our payloads trouble it: a tracker rendered on an emptied device topic (issue 22).
PAYLOAD_TROUBLE = ("Template variable error", "Error parsing value", "Erroneous JSON")
# A warning or worse from the MQTT integration or the template engine, in Home Assistant's log format
# (`2026-01-01 12:00:00.000 WARNING (MainThread) [homeassistant.components.mqtt.entity] …`).
OUR_LOGGERS = re.compile(r"^\S+ \S+ (WARNING|ERROR|CRITICAL) \([^)]*\) "
                         r"\[(homeassistant\.components\.mqtt|homeassistant\.helpers\.template)[^\]]*\]")
LOG_LINE = re.compile(r"^\S+ \S+ (DEBUG|INFO|WARNING|ERROR|CRITICAL) ")


def start_peerscand(lan, start_daemon, broker):
    return start_scanner(lan, start_daemon, "--mqtt-url", broker.url, *MQTT)


def trackers(ha: HomeAssistant) -> dict[str, dict]:
    """peerscan's trackers in the entity registry, by peerscand's device id (the end of their unique_id)."""
    entries = [entry for entry in ha.entities().values() if entry["unique_id"].startswith("peerscan_")]
    by_device: dict[str, dict] = {}
    for entry in entries:
        device_id = entry["unique_id"][-36:]
        assert device_id not in by_device, f"two trackers for {device_id}: {entry}, {by_device[device_id]}"
        by_device[device_id] = entry
    return by_device


def ha_devices(ha: HomeAssistant) -> dict[str, dict]:
    """Home Assistant's devices made from peerscan's discovery configs, by peerscand's device id."""
    result: dict[str, dict] = {}
    for device in ha.devices().values():
        ids = [value for domain, value in device["identifiers"] if domain == "mqtt" and value.startswith("peerscan_")]
        assert len(ids) == 1, f"a device with {len(ids)} peerscan identifiers: {device}"
        result[ids[0].removeprefix("peerscan_")] = device
    return result


def tracker_states(ha: HomeAssistant) -> dict[str, str]:
    """The state of each of peerscan's trackers, by peerscand's device id."""
    entity_ids = {entry["entity_id"]: device_id for device_id, entry in trackers(ha).items()}
    return {entity_ids[entity_id]: state["state"] for entity_id, state in ha.states().items()
            if entity_id in entity_ids}


def registry_view(ha: HomeAssistant) -> dict:
    """What must not change when peerscand restarts: each tracker's registry entry and each HA device."""
    entity_keys = ("id", "entity_id", "name", "created_at", "device_id", "disabled_by")
    device_keys = ("id", "name", "name_by_user", "created_at", "identifiers", "connections", "manufacturer")
    return {"entities": {device_id: {key: entry[key] for key in entity_keys}
                         for device_id, entry in trackers(ha).items()},
            "devices": {device_id: {key: device[key] for key in device_keys}
                        for device_id, device in ha_devices(ha).items()}}


def all_home(ha: HomeAssistant, device_ids: set[str]) -> bool:
    states = tracker_states(ha)
    return set(states) == device_ids and all(state == "home" for state in states.values())


def sync_with_broker(ha: HomeAssistant, broker, lan) -> None:
    """Returns once Home Assistant has received every message the broker routed to it before now: a marker published
    now comes back through Home Assistant's own subscription (one connection: in order). Discovery work that those
    messages started (an entity removed, a config applied) is given 2 s more to finish."""
    marker = f"marker-{time.monotonic_ns()}"
    since = time.monotonic()
    subprocess.run(["ip", "netns", "exec", lan.scanner_ns, "mosquitto_pub", "-h", broker.host, "-p",
                    str(broker.port), "-q", "1", "-t", MARKER_TOPIC, "-m", marker], check=True, timeout=10)
    ha.wait_for(lambda: any(event.get("payload") == marker for event in ha.events_since(since)), 15,
                "the marker to come back through Home Assistant")
    time.sleep(2)


def log_problems(ha: HomeAssistant, since_line: int = 0) -> list[str]:
    """The lines of Home Assistant's log (from line `since_line`) that are about our payloads: a warning or error of
    the MQTT integration or the template engine, or one of the messages issue 22 saw."""
    return [line for line in ha.log_text().splitlines()[since_line:]
            if OUR_LOGGERS.match(line) or any(text in line for text in PAYLOAD_TROUBLE)]


def log_length(ha: HomeAssistant) -> int:
    return len(ha.log_text().splitlines())


def differences(before: dict, after: dict) -> list[str]:
    """What changed between two `registry_view`s, one line per entity or device."""
    lines = []
    for section in ("entities", "devices"):
        for device_id in sorted(set(before[section]) | set(after[section])):
            old, new = before[section].get(device_id), after[section].get(device_id)
            if old is None or new is None:
                lines.append(f"{section} of {device_id}: {old} -> {new}")
            elif old != new:
                lines.append(f"{section} of {device_id}: " + ", ".join(
                    f"{key} {old[key]!r} -> {new[key]!r}" for key in old if old[key] != new[key]))
    return lines


def report_other_log_lines(ha: HomeAssistant) -> None:
    """Prints Home Assistant's other warnings and errors (not asserted: those of its own start, in a namespace without
    Internet), so that a run shows them."""
    ours = set(log_problems(ha))
    lines = [line for line in ha.log_text().splitlines()
             if (match := LOG_LINE.match(line)) and match.group(1) in ("WARNING", "ERROR", "CRITICAL")
             and line not in ours]
    print("Home Assistant's other warnings and errors:\n" + "\n".join(lines[:40]) if lines else
          "Home Assistant logged no other warning or error")


def test_every_device_is_one_tracker_and_one_ha_device_that_follows_presence_until_forgotten(
        lan, start_daemon, broker, home_assistant):
    ha = home_assistant
    alpha = lan.add_peer("alpha")
    alpha.register("Alpha", "_http._tcp", 80)
    plug = lan.add_host("plug", mac=real_oui_mac(0x50))
    daemon = start_peerscand(lan, start_daemon, broker)
    snapshot = daemon.wait_for(lambda s: by_mac(s, plug.mac) and any(
        d["hostName"] == "alpha.local" for d in applier.devices(s).values()), timeout=30, what="alpha and the plug")
    listed = applier.devices(snapshot)
    took = ha.wait_for(lambda: all_home(ha, set(listed)), 30, "a tracker at home in Home Assistant per device")
    print(f"Home Assistant: {len(listed)} trackers home {took:.1f} s after peerscand listed them")

    entities, devices = trackers(ha), ha_devices(ha)
    assert set(entities) == set(devices) == set(listed), (entities, devices, listed)
    for device_id, item in listed.items():
        entry, device = entities[device_id], devices[device_id]
        assert entry["device_id"] == device["id"], "the tracker belongs to its HA device"
        assert device["name"] == (item["displayName"] or item["hostName"] or item["macAddresses"][0])
        assert device["manufacturer"] == item["vendor"]
        assert {tuple(c) for c in device["connections"]} == {("mac", mac) for mac in item["macAddresses"]}
    state = ha.states()[entities[by_mac(snapshot, plug.mac)["id"]]["entity_id"]]
    assert state["attributes"]["source_type"] == "router"
    assert state["attributes"]["macAddresses"] == [plug.mac], "the device item is the tracker's attributes"

    plug_id = by_mac(snapshot, plug.mac)["id"]
    plug.silence()
    daemon.wait_for(lambda s: by_mac(s, plug.mac)["online"] is False, timeout=30, what="the plug offline")
    ha.wait_for(lambda: tracker_states(ha).get(plug_id) == "not_home", 15, "the plug not_home in Home Assistant")
    plug.unsilence()
    daemon.wait_for(lambda s: by_mac(s, plug.mac)["online"] is True, timeout=20, what="the plug online again")
    ha.wait_for(lambda: tracker_states(ha).get(plug_id) == "home", 15, "the plug home again in Home Assistant")

    assert not log_problems(ha), "Home Assistant's log during discovery and presence:\n" + "\n".join(log_problems(ha))

    # Alpha leaves without goodbyes (issue 28): its responder killed, its link down. avahi-daemon keeps its records
    # for minutes; peerscand takes it offline within --offline-after (6 s) + a probe round (2 s) + its question (3 s),
    # and Home Assistant follows at once.
    alpha_id = next(device_id for device_id, item in listed.items() if item["hostName"] == "alpha.local")
    alpha.stop(graceful=False)
    alpha.link_down()
    left = time.monotonic()
    daemon.wait_for(lambda s: applier.devices(s)[alpha_id]["online"] is False, timeout=30, what="alpha offline")
    offline = time.monotonic() - left
    lag = ha.wait_for(lambda: tracker_states(ha).get(alpha_id) == "not_home", 15, "alpha not_home in Home Assistant")
    print(f"alpha: offline {offline:.1f} s after it left, not_home in Home Assistant {lag:.1f} s later")
    assert offline <= 6 + 2 + 3, f"offline {offline:.1f} s after it left"
    assert lag <= 3, f"Home Assistant showed not_home {lag:.1f} s after peerscand's offline"

    # A person's label is Home Assistant's device name (issue 23).
    lan.run_in_scanner([PEERSCANCTL, "set", plug.mac, "--name", "Kitchen plug", "--socket", str(daemon.socket)])
    ha.wait_for(lambda: ha_devices(ha)[plug_id]["name"] == "Kitchen plug", 15, "the label as the HA device's name")

    plug.silence()
    daemon.wait_for(lambda s: by_mac(s, plug.mac)["online"] is False, timeout=30, what="the plug offline")
    entity_id = entities[plug_id]["entity_id"]
    log_before = log_length(ha)
    result = lan.run_in_scanner([PEERSCANCTL, "forget", plug.mac, "--socket", str(daemon.socket)])
    assert result.stdout.strip() == f"forgot {plug_id}"
    daemon.wait_for(lambda s: by_mac(s, plug.mac) is None, what="the plug forgotten")
    ha.wait_for(lambda: plug_id not in trackers(ha) and plug_id not in ha_devices(ha)
                and entity_id not in ha.states(), 15, "the plug's tracker and device gone from Home Assistant")
    assert set(trackers(ha)) == set(ha_devices(ha)) == set(listed) - {plug_id}
    # The log is written by a thread of its own: the removal's line shows that what came before it is there too.
    ha.wait_for(lambda: f"Removing component: {entity_id}" in ha.log_text(), 10, "the removal in Home Assistant's log")
    report_other_log_lines(ha)
    assert not log_problems(ha, log_before), ("Home Assistant's log when peerscand deleted the forgotten device's "
                                              "topics:\n" + "\n".join(log_problems(ha, log_before)))


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_a_peerscand_restart_leaves_every_entity_ha_device_and_user_change_in_place(
        lan, start_daemon, broker, home_assistant, how):
    ha = home_assistant
    for name in ("alpha", "beta"):
        lan.add_peer(name).register(name.title(), "_http._tcp", 80)
    plug = lan.add_host("plug", mac=real_oui_mac(0x51))
    daemon = start_peerscand(lan, start_daemon, broker)
    snapshot = daemon.wait_for(lambda s: by_mac(s, plug.mac) and {"alpha.local", "beta.local"} <= {
        d["hostName"] for d in applier.devices(s).values()}, timeout=30, what="alpha, beta and the plug")
    listed = set(applier.devices(snapshot))
    ha.wait_for(lambda: all_home(ha, listed), 30, "every tracker home in Home Assistant")

    # What a user does in Home Assistant: rename an entity (its id and its name), name a device.
    by_host = {item["hostName"]: device_id for device_id, item in applier.devices(snapshot).items()}
    alpha_entity = trackers(ha)[by_host["alpha.local"]]["entity_id"]
    ha.call("config/entity_registry/update", entity_id=alpha_entity, new_entity_id="device_tracker.my_alpha",
            name="My Alpha")
    ha.call("config/device_registry/update", device_id=ha_devices(ha)[by_host["beta.local"]]["id"],
            name_by_user="Beta's box")
    before = registry_view(ha)
    assert before["entities"][by_host["alpha.local"]]["entity_id"] == "device_tracker.my_alpha"

    ha.subscribe("entity_registry_updated")
    ha.subscribe("device_registry_updated")
    ha.call("mqtt/subscribe", topic=MARKER_TOPIC)
    log_before = log_length(ha)
    stopped = time.monotonic()
    if how == "SIGTERM":
        assert daemon.stop() == 0
    else:
        daemon.process.kill()
        daemon.process.wait()
    # The scanner's status (its clean `offline`, or the broker's last will after 1.5 keep-alives) makes every
    # tracker unavailable: Home Assistant saw peerscand go.
    ha.wait_for(lambda: set(tracker_states(ha).values()) == {"unavailable"}, 20,
                f"every tracker unavailable after peerscand's {how}")

    daemon = start_peerscand(lan, start_daemon, broker)
    daemon.wait_for(lambda s: set(applier.devices(s)) == listed and all(
        d["online"] for d in applier.devices(s).values()), timeout=30, what="every device back online")
    ha.wait_for(lambda: all_home(ha, listed), 30, "every tracker home again after the restart")
    sync_with_broker(ha, broker, lan)

    after = registry_view(ha)
    events = ha.events_since(stopped)
    changes = [(event["time_fired"][11:23], event["event_type"], event["data"].get("action"),
                event["data"].get("entity_id") or event["data"].get("device_id")) for event in events
               if event.get("event_type") in ("entity_registry_updated", "device_registry_updated")]
    removed_or_created = [change for change in changes if change[2] in ("remove", "create")]
    new_log = ha.log_text().splitlines()[log_before:]
    removals_logged = [line for line in new_log if "Removing component" in line]
    problems = log_problems(ha, log_before)
    report_other_log_lines(ha)
    report = (f"after peerscand's {how}:\nregistry events: {removed_or_created}\n"
              f"registry differences:\n  " + "\n  ".join(differences(before, after) or ["none"]) + "\n"
              f"log: {removals_logged[:6]}{' …' if len(removals_logged) > 6 else ''}\n"
              f"problems logged: {problems[:6]}{' …' if len(problems) > 6 else ''}")
    print(report)
    assert not removed_or_created, f"Home Assistant removed or re-created entities or devices; {report}"
    assert not removals_logged, f"Home Assistant removed components; {report}"
    assert after == before, "the registries changed across the restart:\n" + "\n".join(differences(before, after))
    assert after["entities"][by_host["alpha.local"]]["entity_id"] == "device_tracker.my_alpha"
    assert after["entities"][by_host["alpha.local"]]["name"] == "My Alpha"
    assert after["devices"][by_host["beta.local"]]["name_by_user"] == "Beta's box"
    assert not problems, f"Home Assistant's log after peerscand's {how}:\n" + "\n".join(problems)
