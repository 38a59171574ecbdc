"""Per-link signals on the radio guest's air: wmediumd (built by testlan/radio/guest.py, RADIO_WMEDIUMD) as
mac80211_hwsim's medium, in the guest only.

Without it every radio hears an access point at its tx power − 50 dB, and mac80211 takes no tx power below 0 dBm:
-50 dBm at the weakest, always 4 bars. With it, the signal of each link is wmediumd's SNR + its noise floor
(-91 dBm), whatever the tx power. wmediumd reads its configuration once, so `set_signal` restarts it; while it
restarts (well under a second) mac80211_hwsim delivers frames itself again, at -30 dBm: trigger the scan that must
see the new signal after `set_signal` returns.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from testlan.radio import air
from testlan.waiting import wait_until

NOISE = -91  # dBm: wmediumd's NOISE_LEVEL
DEFAULT_SIGNAL = -30  # dBm on every link not set otherwise: what hwsim gives at 20 dBm without wmediumd
RADIOS = int(os.environ.get("RADIO_RADIOS", "10"))


class Medium:
    """wmediumd with every link at DEFAULT_SIGNAL but those of the access points given a signal of their own."""

    def __init__(self, folder: Path = Path("/run/wmediumd")) -> None:
        self.binary = os.environ.get("RADIO_WMEDIUMD", "")
        if not self.binary:
            raise air.AirError("RADIO_WMEDIUMD is not set: run in the radio guest (testlan/radio/guest.py)")
        folder.mkdir(parents=True, exist_ok=True)
        self.config, self.log = folder / "wmediumd.cfg", folder / "wmediumd.log"
        self.signals: dict[int, int] = {}  # radio index → dBm heard from it on every link
        self.process: subprocess.Popen | None = None

    def _write_config(self) -> None:
        # The radios' permanent addresses: 02:00:00:00:NN:00 with the locally administered bit hwsim sets (42:…).
        ids = ",\n".join(f'\t\t"42:00:00:00:{index:02x}:00"' for index in range(RADIOS))
        links = ",\n".join(
            f"\t\t({a}, {b}, {self.signals.get(a, self.signals.get(b, DEFAULT_SIGNAL)) - NOISE})"
            for a in range(RADIOS) for b in range(a + 1, RADIOS))
        self.config.write_text(f"ifaces :\n{{\n\tids = [\n{ids}\n\t];\n\tlinks = (\n{links}\n\t);\n}};\n")

    def start(self) -> None:
        self._write_config()
        with self.log.open("w") as log:
            self.process = subprocess.Popen([self.binary, "-c", str(self.config)], stdout=log, stderr=log)
        wait_until(lambda: f"Added station {RADIOS - 1}:" in self.log.read_text(), 10, interval=0.1,
                   what="wmediumd's stations", give_up=self._exited, details=lambda: self.log.read_text()[-1000:])

    def _exited(self) -> str | None:
        return None if self.process is None or self.process.poll() is None else "wmediumd exited"

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    def set_signal(self, ap: air.AccessPoint, dbm: int) -> None:
        """Every radio hears `ap` at `dbm` (and it hears them so) from now on."""
        self.signals[int(ap.interface.removeprefix("wlan"))] = dbm
        self.stop()
        self.start()

    def __enter__(self) -> Medium:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
