"""A throw-away mDNS test LAN built from network namespaces.

Everything runs inside namespaces this package creates itself; nothing is bound to the
host's own interfaces. See :class:`testlan.lan.TestLAN`.

Modules: ``lan`` (TestLAN, and re-exports of the rest), ``netns`` (commands, namespaces, the
switch, processes, teardown), ``daemons`` (the private bus and avahi-daemon), ``peers`` (Peer,
Host), ``browse`` (avahi-browse output), ``broker`` (mosquitto), ``demo``; ``responder.py`` is a
script run by path inside each peer namespace (python-zeroconf only, no package imports). Waits,
/proc figures and peerscand itself come from testkit; nothing here imports testclient. Nothing is
installed: run from the repository's root (``python3 -m testlan``), where pytest also finds it
(``pythonpath`` in pyproject.toml).
"""

from .lan import BrowseRow, Peer, TestLAN, cleanup_stale

__all__ = ["BrowseRow", "Peer", "TestLAN", "cleanup_stale"]
