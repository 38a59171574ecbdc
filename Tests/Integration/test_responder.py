"""The test LAN's responder answers like a real mDNS responder: a host's address records of one type leave together
(RFC 6762 §10.2). They carry the cache-flush bit, so an answer with only some of them makes avahi-daemon drop the
rest — and avahi-daemon drops a response packet without an answer, so they never travel as additionals; no packet
is too long for IPv6; a change drops the old records' queued answers. No network: the query handler and the
responder's queue purge are called directly."""

from __future__ import annotations

import ipaddress
import struct
import time
from collections import deque
from types import SimpleNamespace

from zeroconf import DNSAddress, DNSIncoming, DNSOutgoing, DNSQuestion, ServiceInfo
from zeroconf._cache import DNSCache
from zeroconf._handlers import AnswerGroup, QueryHandler, construct_outgoing_multicast_answers
from zeroconf._history import QuestionHistory
from zeroconf._services.registry import ServiceRegistry
from zeroconf.const import _CLASS_IN, _FLAGS_QR_QUERY, _TYPE_A, _TYPE_PTR

from testlan.responder import Responder, WholeRRSetQueryHandler

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


def browse_response(handler_class: type[QueryHandler]) -> list[bytes]:
    """The packets a handler multicasts for a browse (PTR) query of a type 60 hosts publish, 3 addresses each: one
    response, long enough to be split."""
    registry = ServiceRegistry()
    for n in range(60):
        addresses = [f"10.239.0.{n + 1}", f"10.240.0.{n + 1}", f"fd70::{n + 1:x}"]
        registry.async_add(ServiceInfo("_stress._tcp.local.", f"S{n}._stress._tcp.local.", port=80,
                                       server=f"s{n}.local.", parsed_addresses=addresses))
    query = DNSOutgoing(_FLAGS_QR_QUERY)
    query.add_question(DNSQuestion("_stress._tcp.local.", _TYPE_PTR, _CLASS_IN))
    answers = handler_class(registry, DNSCache(), QuestionHistory()).async_response([DNSIncoming(query.packets()[0])],
                                                                                   False)
    groups = [group for group in answers if group]
    assert len(groups) == 1  # the shared PTR records are aggregated: one group, one response
    return construct_outgoing_multicast_answers(groups[0]).packets()


def answerless_packets_with_addresses(packets: list[bytes]) -> int:
    counts = [struct.unpack("!H", packet[6:8])[0] for packet in packets]
    return sum(1 for count, packet in zip(counts, packets, strict=True)
               if count == 0 and any(isinstance(r, DNSAddress) for r in DNSIncoming(packet).answers))


def test_stock_zeroconf_sends_addresses_in_packets_without_an_answer() -> None:
    """The baseline: avahi-daemon drops such a packet, and the host's addresses in the packet before flush them."""
    assert answerless_packets_with_addresses(browse_response(QueryHandler)) > 0


def test_addresses_are_answers_and_every_packet_fits_ipv6() -> None:
    packets = browse_response(WholeRRSetQueryHandler)
    assert len(packets) > 1
    assert answerless_packets_with_addresses(packets) == 0
    addresses = [r for packet in packets for r in DNSIncoming(packet).answers if isinstance(r, DNSAddress)]
    assert len(addresses) == 180
    assert max(len(packet) for packet in packets) <= 1452  # + 48 bytes of IPv6 and UDP headers: a 1,500-byte MTU


def queued_after_a_change(addresses: bool) -> list[str]:
    """What is left queued for a host's service, A query and SRV answer (its addresses additional) once the
    responder forgets the service's old records."""
    info = ServiceInfo("_http._tcp.local.", "x._http._tcp.local.", port=80, server="h.local.",
                       parsed_addresses=ADDRESSES[:2])
    other = ServiceInfo("_ipp._tcp.local.", "y._ipp._tcp.local.", port=631, server="h.local.",
                        parsed_addresses=ADDRESSES[:2])
    answers = {info.dns_service(): set(info.dns_addresses()), other.dns_service(): set(other.dns_addresses()),
               **{record: set() for record in info.dns_addresses()}}
    zc = SimpleNamespace(_out_queue=SimpleNamespace(queue=deque([AnswerGroup(0, 0, answers)])),
                         _out_delay_queue=SimpleNamespace(queue=deque()))
    Responder._forget_queued(SimpleNamespace(zc=zc), [info], addresses=addresses)
    left = zc._out_queue.queue[0].answers
    return sorted(f"{r.name} {r.get_type(r.type)} " + ",".join(sorted(
        str(ipaddress.ip_address(a.address)) for a in additionals)) for r, additionals in left.items())


def test_a_changed_service_leaves_no_old_record_queued() -> None:
    assert queued_after_a_change(addresses=False) == [
        "h.local. a ", "h.local. a ", "y._ipp._tcp.local. srv 10.240.0.146,10.240.0.147"]


def test_a_host_whose_addresses_changed_leaves_none_of_them_queued() -> None:
    assert queued_after_a_change(addresses=True) == ["y._ipp._tcp.local. srv "]
