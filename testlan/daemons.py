"""The scanner host's daemons: a private D-Bus system bus and avahi-daemon, as configuration files and command lines
(`TestLAN` starts them in the scanner namespace and owns the processes), and a larger receive buffer for a running
avahi-daemon's mDNS sockets (`enlarge_receive_buffers`)."""

from __future__ import annotations

import ctypes
import os
import socket
from pathlib import Path

from .netns import INTERFACE


def write_bus_config(directory: Path) -> tuple[Path, str]:
    """A system bus listening on ``<directory>/system_bus_socket`` that lets anyone own and call anything, with the
    host's service policies included (avahi-daemon's among them).

    - Returns: the configuration file and the bus address (``unix:path=…``).
    """
    socket_path = directory / "system_bus_socket"
    config = directory / "dbus-system.conf"
    config.write_text(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket_path}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
  <includedir>/usr/share/dbus-1/system.d</includedir>
</busconfig>
""")
    return config, f"unix:path={socket_path}"


def bus_argv(config: Path) -> list[str]:
    """dbus-daemon in the foreground; it prints its address once it listens."""
    return ["dbus-daemon", f"--config-file={config}", "--nofork", "--nopidfile", "--print-address"]


def avahi_argv(directory: Path, server_options: dict[str, str]) -> list[str]:
    """avahi-daemon on lan0 only, in a mount namespace of its own (private /run, no static services), its
    configuration written to ``<directory>/avahi-daemon.conf`` with ``server_options`` added to ``[server]``."""
    conf = directory / "avahi-daemon.conf"
    extra = "".join(f"{key}={value}\n" for key, value in server_options.items())
    conf.write_text(f"""[server]
host-name=scanner
domain-name=local
use-ipv4=yes
use-ipv6=yes
allow-interfaces={INTERFACE}
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
{extra}[wide-area]
enable-wide-area=no
[publish]
publish-workstation=no
publish-hinfo=no
""")
    empty = directory / "empty-services"
    empty.mkdir(exist_ok=True)
    # /run/avahi-daemon does not exist on a host without the daemon running, so the private
    # mount namespace gets a whole tmpfs /run (the pid file and socket live there).
    script = (f"mount -t tmpfs tmpfs /run && mkdir /run/avahi-daemon && "
              f"mount --bind {empty} /etc/avahi/services && "
              f"exec avahi-daemon -f {conf} --no-drop-root --no-chroot --no-rlimits")
    return ["unshare", "-m", "sh", "-c", script]


# Asks avahi-daemon for its server state over the bus; `avahi_is_running` reads the answer.
AVAHI_STATE_ARGV = ["dbus-send", "--system", "--print-reply", "--dest=org.freedesktop.Avahi", "/",
                    "org.freedesktop.Avahi.Server.GetState"]


def avahi_is_running(returncode: int, stdout: str) -> bool:
    """Whether `AVAHI_STATE_ARGV` answered AVAHI_SERVER_RUNNING (2)."""
    return returncode == 0 and "int32 2" in stdout


# avahi-daemon's mDNS receive buffer the stress suite and the scale benchmark give it (bytes; 0: the kernel's default,
# 208 KiB): with the default, avahi-daemon drops a quarter of the datagrams of a 2,000-service LAN. STRESS_AVAHI_RCVBUF
# overrides.
AVAHI_RECEIVE_BUFFER = int(os.environ.get("STRESS_AVAHI_RCVBUF", str(8 << 20)))


def enlarge_receive_buffers(pid: int, size: int) -> list[int]:
    """Give the UDP sockets of process `pid` bound to port 5353 (avahi-daemon's mDNS sockets) a receive buffer of
    `size` bytes: each socket is duplicated into this process (pidfd_getfd) and set with SO_RCVBUFFORCE, as a
    large deployment raises net.core.rmem_default (which a network namespace cannot change here). Only the test
    LAN's avahi-daemon is touched. Returns the buffer sizes the kernel reports."""
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = os.pidfd_open(pid)
    sizes = []
    try:
        for name in os.listdir(f"/proc/{pid}/fd"):
            try:
                if not os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:"):
                    continue
            except OSError:
                continue
            fd = libc.syscall(438, pidfd, int(name), 0)  # pidfd_getfd
            if fd < 0:
                continue
            sock = socket.socket(fileno=fd)
            try:
                if sock.type == socket.SOCK_DGRAM and sock.family in (socket.AF_INET, socket.AF_INET6) \
                        and sock.getsockname()[1] == 5353:
                    sock.setsockopt(socket.SOL_SOCKET, 33, size)  # SO_RCVBUFFORCE
                    sizes.append(sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF))
            finally:
                sock.close()
    finally:
        os.close(pidfd)
    return sizes
