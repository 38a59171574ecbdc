"""The Wi-Fi demo (``make demo-wifi``, inside the radio guest): peerscand lists the simulated air and ``peerscanctl
watch`` prints each change while a short scene plays (~1.5 min): the networks are listed, a network appears (the OWE
access point is enabled), one weakens (-30 → -70 dBm through medium.py: 4 → 2 bars), one leaves (the 5 GHz access
point is switched off: gone after --wifi-expire, 30 s) and the station connects to the WPA2 network (its interface
item shows the connection, the network moves first). The narration goes to stderr, prefixed `scene:`; peerscand's
log to the results share (peerscand.log).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from testlan.radio import air
from testlan.radio.daemon import PEERSCANCTL, peerscand
from testlan.radio.medium import Medium


def say(text: str) -> None:
    print(f"scene: {text}", file=sys.stderr, flush=True)


def main() -> int:
    results = Path(os.environ.get("RADIO_RESULTS", "/tmp"))
    appearing, weakening, leaving = air.BY_NAME["owe"], air.BY_NAME["open"], air.BY_NAME["5ghz"]
    air.disable(appearing)
    air.trigger_scan(air.SCANNER, flush=True)
    with Medium() as medium, peerscand("--wifi-scan-interval", "3", "--wifi-expire", "30",
                                       log=results / "peerscand.log") as daemon:
        watch = subprocess.Popen([str(PEERSCANCTL), "watch", "--socket", str(daemon.socket)])
        try:
            say("peerscand lists the air (5 access points; radio-owe is off)")
            time.sleep(10)
            say(f"{appearing.ssid} is switched on")
            air.enable(appearing)
            time.sleep(10)
            say(f"{weakening.ssid} weakens to -70 dBm (2 bars)")
            medium.set_signal(weakening, -70)
            time.sleep(8)
            say(f"{leaving.ssid} is switched off (it leaves after --wifi-expire, 30 s)")
            air.disable(leaving)
            time.sleep(40)
            say(f"the station {air.STATION} connects to {air.BY_NAME['wpa2'].ssid}")
            with air.station(air.BY_NAME["wpa2"]):
                time.sleep(10)
            say("the station disconnects; the end")
            time.sleep(5)
        finally:
            watch.terminate()
            watch.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
