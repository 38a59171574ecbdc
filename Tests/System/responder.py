#!/usr/bin/env python3
"""A python-zeroconf responder for the system test: one device, "System Test Printer" (_http._tcp), at ADDRESS.

scripts/system-test runs it in the harness's own network namespace, at the far end of the veth pair whose other end
is the container's only interface besides lo: the avahi-daemon booted inside the container must find it over real
mDNS, so that peerscand (sandboxed by its unit) can be checked to see it through Avahi over D-Bus. It never binds
anything but ADDRESS, an address that exists only inside that namespace. It runs until SIGTERM.
"""
import signal
import socket
import sys
import threading

from zeroconf import ServiceInfo, Zeroconf


def main(address: str) -> None:
    """Registers the device on ADDRESS and keeps answering queries until SIGTERM or SIGINT."""
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    zc = Zeroconf(interfaces=[address])
    info = ServiceInfo(
        "_http._tcp.local.",
        "System Test Printer._http._tcp.local.",
        addresses=[socket.inet_aton(address)],
        port=80,
        properties={"path": "/"},
        server="systest-printer.local.",
    )
    zc.register_service(info)
    print("responder: registered System Test Printer on", address, flush=True)
    stop.wait()
    zc.unregister_service(info)
    zc.close()


if __name__ == "__main__":
    main(sys.argv[1])
