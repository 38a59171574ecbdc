"""The demo scene: peers that appear, change and leave over time, with peerscand watching them.

``python3 -m testlan demo [--duration SECONDS] [--peerscand PATH] [--peerscanctl PATH] [--peerscan-web PATH]
[--web-port PORT] [--log FILE]`` brings up the test LAN, starts peerscand in the scanner namespace (its Varlink socket
in the LAN's temporary directory) and runs ``peerscanctl watch`` on that socket, so the live changes show on the
terminal, and peerscan-web beside peerscand (in the scanner namespace, on its loopback, port 8737), with a forward from
the host's 127.0.0.1:PORT (--web-port, default 8737; a free one if taken; 0: no forward) into it: the page's address,
with a fresh token for writes, is printed. Meanwhile a script plays the scene in a loop: devices appear (one with two
services at once), gain a service, change TXT records and ports, gain and lose an address, and withdraw their services
(the hosts stay listed: they still answer ARP); avahi-daemon restarts once; scanning is switched off and on once. Two
hosts that speak no mDNS are found by probing (a plug with a Cisco MAC address, a phone with a random one); the plug
goes silent (offline 15 s later), comes back (online), and the phone takes its address (an address conflict). Each
scripted event is one line of the watcher. Ctrl-C (or the duration) ends it and tears everything down. peerscand's log
goes to --log (default .build/demo/peerscand.log), peerscan-web's beside it (peerscan-web.log).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import threading
import time
from pathlib import Path

from testkit.forward import LoopbackForward, connect_in
from testkit.peerscand import Peerscand, command
from testkit.waiting import WaitError, wait_until

from .lan import TestLAN, random_mac, real_oui_mac

ROOT = Path(__file__).resolve().parents[1]
LAPTOP_EXTRA_ADDRESS = "10.231.0.112"
WEB_PORT = 8737  # peerscan-web's, on the scanner namespace's loopback


def _scene(lan: TestLAN, peerscanctl: str, socket: Path, stop: threading.Event) -> None:
    """Peers appear, change and leave, in a loop; avahi restarts and scanning toggles in the first round."""
    def pause(seconds: float) -> bool:
        return not stop.wait(seconds)

    def scanning(state: str) -> None:
        subprocess.run([peerscanctl, "scanning", state, "--socket", str(socket)], check=False,
                       stdout=subprocess.DEVNULL)

    tv = lan.add_peer("livingroom-tv")
    printer = lan.add_peer("office-printer")
    laptop = lan.add_peer("laptop")
    plug = lan.add_host("plug", mac=real_oui_mac(0x0a0014))  # no mDNS: found by probing, vendor from its MAC
    phone = lan.add_host("phone", mac=random_mac(0x15))  # a randomized MAC address: no vendor
    round_number = 0
    while not stop.is_set():
        round_number += 1
        tv.register("Living Room TV", "_airplay._tcp", 7000, {"model": "TV1", "fw": f"{round_number}.0"})
        if not pause(2): break
        printer.register_all([  # a device that comes up with two services: one event
            {"name": "Office Printer", "type": "_ipp._tcp", "port": 631, "txt": {"rp": "ipp/print", "color": "T"}},
            {"name": "Office Printer", "type": "_http._tcp", "port": 80, "txt": {"path": "/"}},
        ])
        if not pause(2): break
        tv.register("Living Room TV", "_raop._tcp", 7000, {"am": "TV1"})
        if not pause(2): break
        laptop.register("Laptop", "_ssh._tcp", 22)
        if not pause(2): break
        printer.update("Office Printer", "_ipp._tcp", txt={"rp": "ipp/print", "color": "F"})
        if not pause(2): break
        laptop.update("Laptop", "_ssh._tcp", port=2222)
        if not pause(2): break
        if round_number == 1:
            plug.silence()  # offline once --offline-after has passed, not at the first missed probe
            if not pause(20): break
            plug.unsilence()  # online at its next answer
            if not pause(6): break
            phone.claim(plug.ipv4)  # two MAC addresses for one IPv4 address: an address conflict
            if not pause(6): break
            lan.restart_avahi()  # no churn: the devices stay
            if not pause(4): break
            scanning("off")
            if not pause(2): break
            scanning("on")
            if not pause(3): break
        laptop.add_address(LAPTOP_EXTRA_ADDRESS)  # every address of a host, as it comes and goes
        if not pause(2): break
        laptop.remove_address(LAPTOP_EXTRA_ADDRESS)
        if not pause(3): break
        laptop.unregister("Laptop", "_ssh._tcp")
        if not pause(2): break
        tv.unregister_all()  # devices that leave with all their services: one event each
        if not pause(2): break
        printer.unregister_all()
        if not pause(3): break


def _start_web(lan: TestLAN, peerscan_web: str, socket: Path, log: Path, host_port: int) -> LoopbackForward | None:
    """peerscan-web in the scanner namespace with a fresh token, and the forward from the host's loopback (none for
    `host_port` 0); prints how to open the page."""
    token = secrets.token_urlsafe(24)
    token_file = Path(lan.tmpdir) / "web-token"
    token_file.write_text(token + "\n")
    token_file.chmod(0o600)
    lan.popen_in_scanner([peerscan_web, "--listen", f"127.0.0.1:{WEB_PORT}", "--socket", str(socket),
                          "--token-file", str(token_file)], stdout=log.open("w"), stderr=subprocess.STDOUT)
    with contextlib.suppress(WaitError):  # the page's address is printed anyway; the log says what is wrong
        wait_until(lambda: _web_answers(lan.scanner_ns), timeout=20, what="peerscan-web listening")
    if host_port == 0:
        print(f"the page: in namespace {lan.scanner_ns}, http://127.0.0.1:{WEB_PORT}/#token={token} (a browser run "
              f"there: sudo ip netns exec {lan.scanner_ns} BROWSER URL); its log: {log}", flush=True)
        return None
    forward = LoopbackForward(lan.scanner_ns, WEB_PORT, host_port)
    print(f"the page: open http://127.0.0.1:{forward.host_port}/#token={token} on this machine (forwarded from its "
          f"loopback into namespace {lan.scanner_ns}, where peerscan-web runs; the token allows writes); "
          f"its log: {log}", flush=True)
    return forward


def _web_answers(namespace: str) -> bool:
    try:
        connect_in(namespace, WEB_PORT, timeout=1).close()
        return True
    except OSError:
        return False


def demo(duration: float | None, peerscand: str, peerscanctl: str, log: Path, peerscan_web: str | None = None,
         web_port: int = WEB_PORT) -> None:
    log.parent.mkdir(parents=True, exist_ok=True)
    with TestLAN() as lan:
        lan.start_avahi()
        socket = Path(lan.tmpdir) / "io.peerscan"
        print(f"test LAN up (scanner namespace {lan.scanner_ns}); peerscand logs to {log}; Ctrl-C ends the demo",
              flush=True)
        lan.run_in_scanner(["sysctl", "-qw", "net.ipv4.ping_group_range=0 2147483647"])  # as systemd sets it
        daemon = Peerscand(command("--state-directory", str(Path(lan.tmpdir) / "state"), "--socket", str(socket),
                                   "--probe-interval", "5", "--offline-after", "15", binary=peerscand),
                           socket, popen=lan.popen_in_scanner, log=log, stdout=None)
        daemon.start()
        with contextlib.suppress(WaitError):  # the watcher says what is wrong if it never comes
            daemon.wait_serving(10)
        forward = _start_web(lan, peerscan_web, socket, log.with_name("peerscan-web.log"), web_port) \
            if peerscan_web else None
        watch = subprocess.Popen([peerscanctl, "watch", "--socket", str(socket), "--timestamps"])
        stop = threading.Event()
        scene = threading.Thread(target=_scene, args=(lan, peerscanctl, socket, stop), daemon=True)
        scene.start()
        try:
            scene.join(timeout=duration)
        except KeyboardInterrupt:
            pass
        # Stop the watcher first: processes the scene started (avahi-daemon after its restart) die with the scene's
        # thread, because the harness gives its children PR_SET_PDEATHSIG, which follows the creating thread.
        time.sleep(1.5)  # let the last changes reach the watcher
        watch.send_signal(signal.SIGINT)
        watch.wait(timeout=10)
        stop.set()
        scene.join(timeout=20)
        if forward:
            forward.close()


def default_binary(name: str) -> str:
    return os.environ.get(name.upper().replace("-", "_"), str(ROOT / ".build" / "debug" / name))
