"""A throw-away mDNS test LAN built from network namespaces.

Everything runs inside namespaces this package creates itself; nothing is bound to the
host's own interfaces. See :class:`testlan.lan.TestLAN`.
"""

from .lan import BrowseRow, Peer, TestLAN, cleanup_stale

__all__ = ["BrowseRow", "Peer", "TestLAN", "cleanup_stale"]
