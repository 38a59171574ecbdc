"""The test LAN's responder answers like a real mDNS responder: a host's address records of one type leave together
(RFC 6762 §10.2). They carry the cache-flush bit, so an answer with only some of them makes avahi-daemon drop the
rest. No network: the query handler is called directly."""

from __future__ import annotations

import ipaddress
import time

from zeroconf import DNSIncoming, DNSOutgoing, DNSQuestion, ServiceInfo
from zeroconf._cache import DNSCache
from zeroconf._handlers import QueryHandler
from zeroconf._history import QuestionHistory
from zeroconf._services.registry import ServiceRegistry
from zeroconf.const import _CLASS_IN, _FLAGS_QR_QUERY, _TYPE_A

from testlan.responder import WholeRRSetQueryHandler

ADDRESSES = ["10.240.0.146", "10.240.0.147", "10.240.0.148"]


def answer(handler_class: type[QueryHandler], known: int, sent_in_last_second: int) -> dict[str, list[str]]:
    """The A addresses a handler answers `s497.local` with, per send group, when the query lists the first `known`
    addresses as known answers and the first `sent_in_last_second` were multicast within the last second."""
    registry = ServiceRegistry()
    info = ServiceInfo("_http._tcp.local.", "x._http._tcp.local.", port=80, server="s497.local.",
                       parsed_addresses=ADDRESSES)
    registry.async_add(info)
    now = time.time() * 1000
    records = info.dns_addresses(created=now)
    cache = DNSCache()
    cache.async_add_records(records[:sent_in_last_second])
    query = DNSOutgoing(_FLAGS_QR_QUERY)
    query.add_question(DNSQuestion("s497.local.", _TYPE_A, _CLASS_IN))
    for record in records[:known]:
        query.add_answer_at_time(record, now)
    answers = handler_class(registry, cache, QuestionHistory()).async_response([DNSIncoming(query.packets()[0])], False)
    return {group: sorted(str(ipaddress.ip_address(r.address)) for r in getattr(answers, group))
            for group in answers._fields if getattr(answers, group)}


def test_stock_zeroconf_splits_the_rrset() -> None:
    """The baseline the fix is for: python-zeroconf alone answers only the address the querier did not list."""
    assert answer(QueryHandler, known=2, sent_in_last_second=0) == {"mcast_now": ADDRESSES[2:]}


def test_known_answers_of_some_members_do_not_split_the_rrset() -> None:
    assert answer(WholeRRSetQueryHandler, known=2, sent_in_last_second=0) == {"mcast_now": ADDRESSES}


def test_every_member_known_sends_nothing() -> None:
    assert answer(WholeRRSetQueryHandler, known=3, sent_in_last_second=0) == {}


def test_a_member_sent_in_the_last_second_delays_the_whole_rrset() -> None:
    assert answer(WholeRRSetQueryHandler, known=0, sent_in_last_second=1) == {"mcast_aggregate_last_second": ADDRESSES}
