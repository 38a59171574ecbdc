"""The MQTT mirror against a real mosquitto: initial publication of many devices, the delay of single-device
changes, and the republication after a broker restart (``peerscan-bench mqtt``; see its --help).

Run as root (needs ``swift build`` first; PEERSCAN_BENCH=path overrides ``.build/debug/peerscan-bench``)::

    /usr/bin/python3 -m benchmarks.mqtt [--devices 10000] [--changes 1000] [--rate 100] [--broker-option LINE]

The benchmark and its broker run in a network namespace of their own, on its loopback only. The broker keeps no
state (persistence off) and queues without limit for the subscriber (``max_queued_messages 0``; mosquitto's default
of 1000 would drop the initial flood on the subscriber's side, not peerscand's).
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = Path(os.environ.get("PEERSCAN_BENCH", ROOT / ".build" / "debug" / "peerscan-bench"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", type=int, default=10000)
    parser.add_argument("--changes", type=int, default=1000)
    parser.add_argument("--rate", type=int, default=100)
    parser.add_argument("--broker-option", action="append", default=[], metavar="LINE",
                        help="an extra mosquitto.conf line, e.g. 'max_inflight_messages 1000' (repeatable)")
    args = parser.parse_args()
    # SIGTERM (e.g. from timeout(1)) unwinds like Ctrl-C, so the namespace and the broker are removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    namespace = f"psl-mqttbench-{secrets.token_hex(2)}"
    with tempfile.TemporaryDirectory(prefix="peerscan-mqtt-bench-") as directory:
        config = Path(directory) / "mosquitto.conf"
        config.write_text("user root\nlistener 1883 127.0.0.1\nallow_anonymous true\npersistence false\n"
                          "max_queued_messages 0\nlog_dest none\n" + "".join(f"{o}\n" for o in args.broker_option))
        subprocess.run(["ip", "netns", "add", namespace], check=True)
        try:
            subprocess.run(["ip", "-n", namespace, "link", "set", "lo", "up"], check=True)
            return subprocess.run(["ip", "netns", "exec", namespace, str(BENCH), "mqtt", "--devices",
                                   str(args.devices), "--changes", str(args.changes), "--rate", str(args.rate),
                                   "--mosquitto-config", str(config)], timeout=1800).returncode
        finally:
            for pid in subprocess.run(["ip", "netns", "pids", namespace], capture_output=True,
                                      text=True).stdout.split():
                subprocess.run(["kill", "-9", pid], capture_output=True)
            subprocess.run(["ip", "netns", "del", namespace], check=True)


if __name__ == "__main__":
    sys.exit(main())
