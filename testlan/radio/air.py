"""The radio guest's air, described once, and the helpers that change it — in the guest only (testlan/radio/guest.py
boots it; these tools must never touch the host's radios, and the host has none).

Radio N of mac80211_hwsim is wlanN with the address 02:00:00:00:0N:00. wlan0–wlan5 are the access points air.sh starts
(hostapd/*.conf), wlan6 is the scanner (peerscand's interface), wlan7 a station (wpa_supplicant), wlan8 the evil twin
(the WPA2 SSID, open, started by `twin()`), wlan9 the benchmark's 26 extra BSSes (`bench_access_points()`) or a beacon
flood's waves (`flood_wave()`). Without a medium the signal every radio hears is the sender's tx power − 50 dB (-30 dBm
at 2.4 GHz's default 20 dBm, -27 dBm at 5 GHz's 23 dBm); mac80211 takes 0 dBm at least, so the weakest signal is
-50 dBm. medium.py's `Medium` sets any signal per transmitter.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from testkit.waiting import wait_until
from testlan.radio import genetlink

HERE = Path(__file__).resolve().parent
HOSTAPD_CONTROL = "/run/hostapd"
SCANNER = "wlan6"
STATION = "wlan7"
TWIN_INTERFACE = "wlan8"
BENCH_INTERFACE = "wlan9"
DEFAULT_TXPOWER = {"2.4GHz": 20, "5GHz": 23}  # dBm: the CN domain's limits, which hwsim uses; heard at -30/-27 dBm


def bssid(interface: str) -> str:
    return f"02:00:00:00:{int(interface.removeprefix('wlan')):02x}:00"


@dataclass(frozen=True)
class AccessPoint:
    """One access point of the air: what peerscand must list for it (security in the contract's raw values)."""

    name: str  # its hostapd/NAME.conf
    interface: str
    ssid: str
    security: str
    frequency: int
    hidden: bool = False
    passphrase: str | None = None

    @property
    def bssid(self) -> str:
        return bssid(self.interface)

    @property
    def band(self) -> str:
        return "5GHz" if self.frequency > 5000 else "2.4GHz"

    @property
    def default_txpower(self) -> int:
        return DEFAULT_TXPOWER[self.band]

    @property
    def channel(self) -> int:
        return (self.frequency - 5000) // 5 if self.frequency > 5000 else (self.frequency - 2407) // 5


AIR = (
    AccessPoint("open", "wlan0", "radio-open", "open", 2412),
    AccessPoint("wpa2", "wlan1", "radio-wpa2", "wpa2-personal", 2437, passphrase="radio-wpa2-pass"),
    AccessPoint("sae", "wlan2", "radio-sae", "wpa3-personal", 2412),
    AccessPoint("owe", "wlan3", "radio-owe", "owe", 2437),
    AccessPoint("hidden", "wlan4", "radio-hidden", "wpa2-personal", 2462, hidden=True,
                passphrase="radio-hidden-pass"),
    AccessPoint("5ghz", "wlan5", "radio-5ghz", "wpa2-personal", 5180, passphrase="radio-5ghz-pass"),
)
BY_NAME = {ap.name: ap for ap in AIR}
TWIN = AccessPoint("twin", TWIN_INTERFACE, "radio-wpa2", "open", 2462)


class AirError(Exception):
    """A command on the air failed; the message has the command and its output."""


def run(*argv: str, timeout: float = 15) -> str:
    """Runs a tool under `timeout -s KILL` (iw can hang in this guest), raising AirError when it fails."""
    result = subprocess.run(["timeout", "-s", "KILL", str(timeout), *argv], capture_output=True, text=True)
    if result.returncode != 0:
        raise AirError(f"{' '.join(argv)} failed ({result.returncode}): {result.stderr.strip() or result.stdout}")
    return result.stdout


def hostapd_cli(interface: str, *command: str) -> str:
    output = run("hostapd_cli", "-p", HOSTAPD_CONTROL, "-i", interface, *command)
    if output.strip().endswith("FAIL"):
        raise AirError(f"hostapd_cli -i {interface} {' '.join(command)}: {output.strip()}")
    return output


def disable(ap: AccessPoint) -> None:
    """Stops the access point's beacons and probe responses (hostapd keeps its configuration)."""
    hostapd_cli(ap.interface, "disable")


def enable(ap: AccessPoint) -> None:
    hostapd_cli(ap.interface, "enable")
    wait_until(lambda: "state=ENABLED" in hostapd_cli(ap.interface, "status"), 15, interval=0.2,
               what=f"{ap.name} enabled")


def set_txpower(ap: AccessPoint, dbm: int) -> None:
    """The access point's tx power, heard at dbm − 50 dBm by every radio (mac80211 accepts 0…20 dBm here)."""
    run("iw", "dev", ap.interface, "set", "txpower", "fixed", str(dbm * 100))


@dataclass
class BSS:
    """One entry of `iw dev X scan dump`."""

    bssid: str
    frequency: int = 0
    signal: float | None = None
    ssid: str = ""
    security: str = "open"
    privacy: bool = False
    akms: str = ""  # the RSN element's authentication suites as iw prints them ("PSK SAE", "IEEE 802.1X")
    wpa1: bool = False


def _security(bss: BSS) -> str:
    """The contract's security value (WiFiSecurity's raw values) from the RSN/WPA elements iw printed."""
    akms = set(bss.akms.replace("IEEE 802.1X", "802.1X").split())
    if akms & {"802.1X", "802.1X/SHA-256"}:
        return "enterprise"
    if "SAE" in akms:
        return "wpa3-transition" if akms & {"PSK", "PSK/SHA-256"} else "wpa3-personal"
    if "OWE" in akms:
        return "owe"
    if akms & {"PSK", "PSK/SHA-256"}:
        return "wpa2-personal"
    if bss.wpa1:
        return "wpa-personal"
    return "wep" if bss.privacy else "open"


def parse_dump(text: str) -> list[BSS]:
    entries: list[BSS] = []
    section = ""
    for line in text.splitlines():
        if match := re.match(r"BSS ([0-9a-f:]{17})", line):
            entries.append(BSS(match.group(1)))
            continue
        if not entries:
            continue
        entry, stripped = entries[-1], line.strip()
        if re.match(r"\t\S", line):  # a top-level field of the entry
            section = stripped.split(":")[0]
        if stripped.startswith("freq:"):
            entry.frequency = int(float(stripped.split()[1]))
        elif stripped.startswith("signal:"):
            entry.signal = float(stripped.split()[1])
        elif stripped.startswith("SSID:") and section == "SSID":
            entry.ssid = stripped.removeprefix("SSID:").strip()
        elif stripped.startswith("capability:"):
            entry.privacy = "Privacy" in stripped
        elif section == "WPA":
            entry.wpa1 = True
        if "Authentication suites:" in stripped and section == "RSN":
            entry.akms = stripped.split(":", 1)[1].strip()
    for entry in entries:
        entry.security = _security(entry)
    return entries


def dump(interface: str = SCANNER) -> dict[str, BSS]:
    """The kernel's scan results on `interface`, by BSSID (no privilege needed)."""
    return {entry.bssid: entry for entry in parse_dump(run("iw", "dev", interface, "scan", "dump"))}


NL80211_CMD_NEW_SCAN_RESULTS, NL80211_CMD_SCAN_ABORTED, NL80211_ATTR_IFINDEX = 34, 35, 3


def trigger_scan(interface: str = SCANNER, timeout: float = 30, flush: bool = False,
                 frequencies: tuple[int, ...] = ()) -> float:
    """Triggers a scan (root: CAP_NET_ADMIN; all channels, or `frequencies`) and waits for nl80211's scan-finished
    event; returns its time.monotonic(). The event is read on a socket subscribed before the trigger (an `iw event`
    started alongside can miss it under load); the combined `iw dev X scan` can hang in this guest."""
    index = int(Path(f"/sys/class/net/{interface}/ifindex").read_text()).to_bytes(4, "little")
    argv = ["iw", "dev", interface, "scan", "trigger", *(["freq", *map(str, frequencies)] if frequencies else []),
            *(["flush"] if flush else [])]
    with contextlib.closing(genetlink.open_socket()) as events:
        _, groups = genetlink.family_of(events, "nl80211")
        genetlink.subscribe(events, groups["scan"])
        for _ in range(3):
            try:
                run(*argv, timeout=timeout)
            except AirError as error:  # another's scan (a peerscand just stopped) still running: wait for its end
                if "busy" not in str(error):
                    raise
                _scan_event(events, index, interface, timeout)
                continue
            if _scan_event(events, index, interface, timeout) != NL80211_CMD_SCAN_ABORTED:
                return time.monotonic()
            raise AirError(f"the scan on {interface} was aborted")
        raise AirError(f"{' '.join(argv)}: busy three times")


def _scan_event(events, index: bytes, interface: str, timeout: float) -> int:
    """The next scan-finished or scan-aborted event's command on the interface (ifindex `index`)."""
    deadline = time.monotonic() + timeout
    while (remaining := deadline - time.monotonic()) > 0:
        events.settimeout(remaining)
        try:
            data = events.recv(65536)
        except TimeoutError:
            break
        for _, command, found in genetlink.messages(data):
            if found.get(NL80211_ATTR_IFINDEX, b"")[:4] == index and command in (NL80211_CMD_NEW_SCAN_RESULTS,
                                                                                NL80211_CMD_SCAN_ABORTED):
                return command
    raise AirError(f"no scan-finished event on {interface} within {timeout} s")


def forget(interface: str) -> None:
    """Empties the interface's scan cache: a flushed scan of one channel no access point uses (5200 MHz)."""
    trigger_scan(interface, flush=True, frequencies=(5200,))


def scan(interface: str = SCANNER, flush: bool = False) -> dict[str, BSS]:
    trigger_scan(interface, flush=flush)
    return dump(interface)


def scan_until_seen(expected: set[str], interface: str = SCANNER, flush: bool = False,
                    attempts: int = 3) -> dict[str, BSS]:
    """The dump after the first of up to `attempts` scans that has every BSSID of `expected` (the first scan flushed
    if asked): a scan can miss a beacon — the hidden access point answers no broadcast probe, only its beacons show
    it — as on a real radio."""
    result = scan(interface, flush=flush)
    for _ in range(attempts - 1):
        if expected <= result.keys():
            break
        result = scan(interface)
    return result


def _running(pid: int) -> bool:
    """Whether the process runs (a zombie does not: the guest's init may be slow to reap)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@contextlib.contextmanager
def _hostapd(config: Path, name: str, interfaces: list[str]) -> Iterator[None]:
    """A hostapd of its own on `config` while in the block, once its radio is enabled (hostapd logs AP-ENABLED once
    per radio, not per BSS) and every BSS's interface exists."""
    log, pidfile = Path(f"/var/log/hostapd-{name}.log"), Path(f"/run/hostapd-{name}.pid")
    log.unlink(missing_ok=True)
    run("hostapd", "-B", "-P", str(pidfile), "-t", "-f", str(log), str(config))
    try:
        wait_until(lambda: "AP-ENABLED" in log.read_text()
                   and all(Path(f"/sys/class/net/{interface}").exists() for interface in interfaces), 30, interval=0.2,
                   what=f"{name}: {len(interfaces)} access points enabled", details=lambda: log.read_text()[-2000:])
        yield
    finally:
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            pid = int(pidfile.read_text())
            os.kill(pid, 15)
            # Gone, and its BSSes' interfaces with it: the next hostapd on this radio makes its own.
            wait_until(lambda: not _running(pid)
                       and not any(Path(f"/sys/class/net/{interface}").exists() for interface in interfaces[1:]),
                       15, interval=0.1, what=f"{name}'s hostapd gone")


@contextlib.contextmanager
def twin() -> Iterator[AccessPoint]:
    """The evil twin: the WPA2 access point's SSID, open, on another radio (later/twin.conf), while in the block."""
    with _hostapd(HERE / "later" / "twin.conf", "twin", [TWIN_INTERFACE]):
        yield TWIN


BENCH_COUNT = 26


@contextlib.contextmanager
def bench_access_points() -> Iterator[int]:
    """26 more access points (BSSes radio-bench-00…25 on wlan9, later/bench.conf) while in the block."""
    bsses = [BENCH_INTERFACE] + [f"{BENCH_INTERFACE}-{n}" for n in range(1, BENCH_COUNT)]
    with _hostapd(HERE / "later" / "bench.conf", "bench", bsses):
        yield BENCH_COUNT


FLOOD_WAVE_SIZE = 20


@contextlib.contextmanager
def flood_wave(wave: int, size: int = FLOOD_WAVE_SIZE) -> Iterator[list[str]]:
    """A wave of a beacon flood while in the block: `size` open BSSes on wlan9 (the benchmark's radio, free outside
    `bench_access_points()`), SSIDs radio-wave{wave}-00… (yielded) with BSSIDs of their own in each wave but the
    first (the radio's address), as a beacon flooder's fake access points come and go."""
    ssids = [f"radio-wave{wave}-{n:02}" for n in range(size)]
    interfaces = [BENCH_INTERFACE] + [f"{BENCH_INTERFACE}-{n}" for n in range(1, size)]
    header = (f"ctrl_interface={HOSTAPD_CONTROL}\ndriver=nl80211\ncountry_code=CN\nbeacon_int=100\n"
              f"interface={BENCH_INTERFACE}\nssid={ssids[0]}\nhw_mode=g\nchannel=11\n")
    sections = [f"\nbss={interfaces[n]}\nctrl_interface={HOSTAPD_CONTROL}\nssid={ssids[n]}\n"
                f"bssid=02:00:00:00:09:{wave * 32 + n:02x}\n" for n in range(1, size)]
    config = Path(f"/run/hostapd-wave{wave}.conf")
    config.write_text(header + "".join(sections))
    with _hostapd(config, f"wave{wave}", interfaces):
        yield ssids


@contextlib.contextmanager
def station(ap: AccessPoint, interface: str = STATION) -> Iterator[str]:
    """wpa_supplicant on `interface`, connected to `ap` (scan_ssid for a hidden one) while in the block."""
    config, pidfile = Path(f"/run/wpa_supplicant-{interface}.conf"), Path(f"/run/wpa_supplicant-{interface}.pid")
    key = f'psk="{ap.passphrase}"' if ap.passphrase else "key_mgmt=NONE"
    config.write_text(f'ctrl_interface=/run/wpa_supplicant\nnetwork={{\n ssid="{ap.ssid}"\n {key}\n scan_ssid=1\n}}\n')
    run("wpa_supplicant", "-B", "-i", interface, "-c", str(config), "-P", str(pidfile))
    try:
        wait_until(lambda: "Connected to" in run("iw", "dev", interface, "link"), 30, interval=0.3,
                   what=f"{interface} connected to {ap.ssid}")
        yield interface
    finally:
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            os.kill(int(pidfile.read_text()), 15)
        wait_until(lambda: "Not connected" in run("iw", "dev", interface, "link"), 15, interval=0.3,
                   what=f"{interface} disconnected")
