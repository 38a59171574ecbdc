"""Per-link signals on the radio guest's air: a small medium of our own for mac80211_hwsim, in the guest only.

Without a medium every radio hears an access point at its tx power − 50 dB (-30 dBm at 20 dBm), and mac80211 takes
no tx power below 0 dBm: -50 dBm at the weakest, always 4 bars. `Medium` registers with hwsim over generic netlink
(family MAC80211_HWSIM, HWSIM_CMD_REGISTER, as wmediumd does) and from then on hwsim hands every transmitted frame to
it (HWSIM_CMD_FRAME). The medium delivers each frame to every other radio (HWSIM_CMD_FRAME with the receiver's
address, the frame's frequency — hwsim drops it at a radio tuned elsewhere — and the signal set for the transmitter,
-30 dBm unless `set_signal` says otherwise), then reports the transmission back (HWSIM_CMD_TX_INFO_FRAME, with the
ACK flag for a unicast frame that asked for one: nothing is lost on this air). Signals change at run time, with no
restart; closing the socket hands the air back to hwsim (the kernel forgets a medium whose socket is gone).

Not wmediumd (bcopeland/wmediumd): it is not packaged in Debian 12 and CI builds nothing from GitHub; the tests need
only one signal per transmitter, not its path-loss models, and this is ~140 lines over genetlink.py's struct packing
(the attributes of the kernel's drivers/net/wireless/mac80211_hwsim.h, not a uapi header: the numbers are copied).
Radio N's hwsim address (the one the commands name) is 42:00:00:00:NN:00: its permanent address with the locally
administered bit hwsim sets.
"""

from __future__ import annotations

import errno
import os
import socket
import struct
import threading

from testlan.radio import air, genetlink
from testlan.radio.genetlink import NLM_F_ACK, NLM_F_REQUEST, attribute, message, messages

RADIOS = int(os.environ.get("RADIO_RADIOS", "10"))
DEFAULT_SIGNAL = -30  # dBm on every link not set otherwise: what hwsim gives at 20 dBm by itself

# mac80211_hwsim.h: commands, attributes, tx flags.
HWSIM_CMD_REGISTER, HWSIM_CMD_FRAME, HWSIM_CMD_TX_INFO_FRAME = 1, 2, 3
(ATTR_ADDR_RECEIVER, ATTR_ADDR_TRANSMITTER, ATTR_FRAME, ATTR_FLAGS, ATTR_RX_RATE, ATTR_SIGNAL, ATTR_TX_INFO,
 ATTR_COOKIE) = range(1, 9)
ATTR_FREQ = 19
TX_CTL_NO_ACK, TX_STAT_ACK = 1 << 1, 1 << 2


def radio_address(index: int) -> bytes:
    return bytes([0x42, 0, 0, 0, index, 0])


class Medium:
    """hwsim's medium while started: every radio hears `ap` at the signal `set_signal` gave it, others at -30 dBm."""

    def __init__(self, radios: int = RADIOS) -> None:
        self.receivers = [radio_address(index) for index in range(radios)]
        self.signals: dict[bytes, int] = {}  # transmitter's hwsim address → dBm every radio hears it at
        self.frames = 0  # delivered (transmitted frames, not copies)
        self.sock: socket.socket | None = None
        self.thread: threading.Thread | None = None
        self.failure: BaseException | None = None
        self.running = False

    def start(self) -> None:
        sock = genetlink.open_socket()
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
            self.family, _ = genetlink.family_of(sock, "MAC80211_HWSIM")
            genetlink.request(sock, message(self.family, HWSIM_CMD_REGISTER, b"", NLM_F_REQUEST | NLM_F_ACK))
        except genetlink.NetlinkError as error:
            sock.close()
            raise air.AirError(f"mac80211_hwsim refused a medium: {error}") from error
        except BaseException:
            sock.close()
            raise
        sock.settimeout(0.2)  # the loop looks at self.running that often (no shutdown() on a netlink socket)
        self.sock, self.running = sock, True
        self.thread = threading.Thread(target=self._serve, name="radio-medium", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """Closes the socket: hwsim delivers frames itself again."""
        if self.sock is not None:
            self.running = False
            self.thread.join(timeout=10)
            self.sock.close()
            self.sock = None
        if self.failure is not None:
            raise air.AirError(f"the medium failed: {self.failure!r}") from self.failure

    def set_signal(self, ap: air.AccessPoint, dbm: int) -> None:
        """Every radio hears `ap` at `dbm` from the next frame on (and `ap` hears them at -30 dBm as before)."""
        self.signals[radio_address(int(ap.interface.removeprefix("wlan")))] = dbm

    def _serve(self) -> None:
        try:
            while self.running:
                try:
                    data = self.sock.recv(65536)
                except TimeoutError:
                    continue
                except OSError as error:
                    if error.errno == errno.ENOBUFS:  # frames dropped under load: the air lost them
                        continue
                    raise
                for kind, command, attributes in messages(data):
                    if kind == self.family and command == HWSIM_CMD_FRAME:
                        self._deliver(attributes)
        except BaseException as error:  # kept for stop() to raise in the test's thread
            self.failure = error

    def _deliver(self, frame: dict[int, bytes]) -> None:
        transmitter, data = frame[ATTR_ADDR_TRANSMITTER][:6], frame[ATTR_FRAME]
        signal = self.signals.get(transmitter, DEFAULT_SIGNAL)
        flags = struct.unpack("=I", frame[ATTR_FLAGS][:4])[0]
        rates = frame[ATTR_TX_INFO]
        rate = max(struct.unpack_from("=b", rates)[0], 0) if rates else 0
        common = (attribute(ATTR_FRAME, data) + attribute(ATTR_RX_RATE, struct.pack("=I", rate))
                  + attribute(ATTR_SIGNAL, struct.pack("=i", signal)))
        if ATTR_FREQ in frame:
            common += attribute(ATTR_FREQ, frame[ATTR_FREQ][:4])
        for receiver in self.receivers:
            if receiver != transmitter:
                self._send(message(self.family, HWSIM_CMD_FRAME, attribute(ATTR_ADDR_RECEIVER, receiver) + common))
        unicast = len(data) >= 10 and not data[4] & 1  # addr1's group bit
        if unicast and not flags & TX_CTL_NO_ACK:
            flags |= TX_STAT_ACK
        status = (attribute(ATTR_ADDR_TRANSMITTER, transmitter) + attribute(ATTR_FLAGS, struct.pack("=I", flags))
                  + attribute(ATTR_SIGNAL, struct.pack("=i", signal)) + attribute(ATTR_TX_INFO, rates)
                  + attribute(ATTR_COOKIE, frame[ATTR_COOKIE][:8]))
        self._send(message(self.family, HWSIM_CMD_TX_INFO_FRAME, status))
        self.frames += 1

    def _send(self, message: bytes) -> None:
        try:
            self.sock.send(message)
        except OSError as error:
            if error.errno not in (errno.ENOBUFS, errno.EAGAIN):
                raise

    def __enter__(self) -> Medium:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
