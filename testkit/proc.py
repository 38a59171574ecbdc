"""A process's resource use from /proc: the one reader the tests and the benchmarks take peerscand's and
avahi-daemon's CPU time and memory from."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Usage", "usage"]

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Usage:
    """What a process has used so far: CPU seconds (user + system), resident set now and at its peak (KiB)."""

    cpu_seconds: float
    rss_kib: int  # VmRSS
    peak_rss_kib: int  # VmHWM

    @property
    def rss_mib(self) -> float:
        return self.rss_kib / 1024

    @property
    def peak_rss_mib(self) -> float:
        return self.peak_rss_kib / 1024


def usage(pid: int) -> Usage:
    """The use of process `pid` (`/proc/PID/stat`'s utime and stime, `/proc/PID/status`'s VmRSS and VmHWM; a zombie,
    which has no memory left, shows 0 KiB).

    - Raises: `OSError` when there is no such process.
    """
    # The command name in parentheses may hold spaces and parentheses: the fields after its last ')' start at the
    # state (field 3), so utime and stime (fields 14 and 15) are the 12th and 13th.
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    status = Path(f"/proc/{pid}/status").read_text()
    memory = {line.split(":")[0]: int(line.split()[1]) for line in status.splitlines() if line.startswith("Vm")}
    return Usage(cpu_seconds=(int(stat[11]) + int(stat[12])) / CLOCK_TICKS, rss_kib=memory.get("VmRSS", 0),
                 peak_rss_kib=memory.get("VmHWM", 0))
