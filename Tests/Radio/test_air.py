"""The smoke test of the radio guest: the air is as testlan/radio/air.py describes it, seen from the scanner radio
with iw (no peerscand): every access point with its SSID (empty for the hidden one), security and band."""

from __future__ import annotations

import pytest

from testkit.waiting import wait_for_value
from testlan.radio import air
from testlan.radio.medium import Medium


@pytest.fixture(scope="module")
def seen():
    return air.scan_until_seen({ap.bssid for ap in air.AIR}, flush=True)


@pytest.mark.parametrize("ap", air.AIR, ids=lambda ap: ap.name)
def test_every_access_point_is_on_the_air_as_configured(seen, ap):
    assert ap.bssid in seen, f"{ap.name} ({ap.bssid}) not in the scan: {sorted(seen)}"
    bss = seen[ap.bssid]
    assert bss.ssid == ("" if ap.hidden else ap.ssid)
    assert bss.security == ap.security, f"{ap.name}: RSN suites {bss.akms!r}, privacy {bss.privacy}"
    assert bss.frequency == ap.frequency
    assert bss.signal == pytest.approx(ap.default_txpower - 50, abs=1)


def test_nothing_else_is_on_the_air(seen):
    assert sorted(seen) == sorted(ap.bssid for ap in air.AIR)


def test_tx_power_sets_the_signal_every_radio_hears(radio_air):
    ap = air.BY_NAME["open"]
    radio_air.set_txpower(ap, 5)
    assert air.scan(air.SCANNER)[ap.bssid].signal == pytest.approx(-45, abs=1)


def test_tx_power_below_zero_is_refused(radio_air):
    """So the weakest signal hwsim gives without a medium is -50 dBm (4 bars): no bar boundary can be crossed."""

    with pytest.raises(air.AirError):
        radio_air.set_txpower(air.BY_NAME["open"], -10)


def at_signal(dump: dict, ap: air.AccessPoint, dbm: float, also: air.AccessPoint) -> dict | None:
    """The dump if it has `ap` at `dbm` and has `also`, else None."""
    return dump if ap.bssid in dump and dump[ap.bssid].signal == dbm and also.bssid in dump else None


def test_the_medium_gives_an_access_point_the_signal_asked_for():
    """-62 dBm: below the 4-bar threshold (-55) by more than the hysteresis; the other links stay at -30 dBm. Each
    scan is flushed: an access point a scan misses would otherwise show what an earlier test's scan heard."""
    ap, other = air.BY_NAME["wpa2"], air.BY_NAME["open"]
    with Medium() as medium:
        medium.set_signal(ap, -62)
        seen = wait_for_value(lambda: at_signal(air.scan(flush=True), ap, -62, also=other), 30,
                              what=f"{ap.ssid} at -62 dBm and {other.ssid} heard", interval=0)
        assert seen[other.bssid].signal == -30
