"""An mDNS/DNS-SD responder for one test-LAN peer, driven by JSON lines on stdin.

Run inside a peer namespace by :class:`testlan.lan.Peer`; not meant to be run by hand
(though ``/usr/bin/python3 responder.py --hostname h --address 10.231.0.10`` works for a try).

Every input line is one JSON object with a ``cmd`` key; every command is answered by exactly
one JSON line on stdout, ``{"ok": true, ...}`` once the command took effect (zeroconf has sent
its announcements) or ``{"ok": false, "error": "..."}``. A ``{"ready": true}`` line is printed
once zeroconf is up. Commands:

``register``   name, type, port, txt (dict, or list of raw "k=v"/"k" strings), addresses (optional)
``register_all`` services: a list of register's arguments, published at once (concurrently)
``update``     name, type, and any of port, txt, addresses (zeroconf ``update_service``)
``unregister`` name, type
``unregister_all`` withdraws every service at once (a device that leaves)
``set_addresses`` addresses: the host's new address list, applied to every service; goodbye
               packets are sent for addresses that went away
``list``       answers with the registered service names
``batch``      ops: a list of changes applied at once (concurrently, through zeroconf's asyncio API), answered
               when all are announced; each op is ``{"op": "register" | "update" | "unregister", ...}`` with
               register's / update's arguments, or ``{"op": "host_addresses", "server": ..., "addresses": [...]}``
               (a host name's new address list: goodbyes for the addresses that went, its services updated).
               Any spec may carry ``server``: the host name its SRV record points to (default the responder's own),
               so that one responder publishes many hosts, each with its own addresses (give ``addresses``).
``quit``       unregisters everything (goodbye packets) and exits
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import ipaddress
import json
import signal
import sys
from typing import Any

import zeroconf._protocol.outgoing
from zeroconf import DNSAddress, DNSOutgoing, DNSPointer, InterfaceChoice, IPVersion, ServiceInfo, Zeroconf
from zeroconf._handlers import QueryHandler, QuestionAnswers
from zeroconf.const import _CLASS_IN, _CLASS_UNIQUE, _FLAGS_AA, _FLAGS_QR_RESPONSE, _TYPE_A, _TYPE_AAAA, _TYPE_PTR

# python-zeroconf 0.47 fills a response packet with up to 1,460 bytes of DNS message: 1,488 bytes of IPv4 but 1,508 of
# IPv6, over the veths' 1,500-byte MTU, and such a packet never leaves over IPv6 (a capture of make stress: 566 of them
# over IPv4, none over IPv6). The next packet of the same response does, and its cache-flush address records, without
# the members the lost packet held, flush those from avahi-daemon's IPv6 cache. 1,452 bytes fit both.
zeroconf._protocol.outgoing._MAX_MSG_TYPICAL = 1452


def full_type(service_type: str) -> str:
    """Return ``_x._tcp.local.`` for ``_x._tcp``, ``_x._tcp.local`` or ``_x._tcp.local.``."""
    t = service_type.rstrip(".")
    if not t.endswith(".local"):
        t += ".local"
    return t + "."


def txt_bytes(txt: Any) -> bytes | dict:
    """Turn a dict (zeroconf properties) or a list of raw strings into ServiceInfo properties.

    A list keeps exact control: ``["a=1", "flag", "a=2"]`` is sent as three raw TXT strings.
    """
    if txt is None:
        return b""
    if isinstance(txt, dict):
        return txt
    out = bytearray()
    for item in txt:
        raw = item.encode()
        if len(raw) > 255:
            raise ValueError(f"TXT string longer than 255 bytes: {item[:20]}...")
        out += bytes([len(raw)]) + raw
    return bytes(out)


class WholeRRSetQueryHandler(QueryHandler):
    """python-zeroconf's query handler, answering a host's address records of one type (its A or its AAAA RRSet) all
    together in one response: they carry the cache-flush bit, which tells a receiver that the packet holds the whole
    RRSet (RFC 6762 §10.2: only records older than one second are flushed, so that a burst can carry all members).

    python-zeroconf 0.47 decides per record: a querier's known answers suppress some of a host's A records and the
    rest go out alone, and its 1 s per-record multicast limit sends records multicast within the last second a second
    later than the others. Every address record carries the cache-flush bit, so a receiver drops the members of the
    RRSet it did not get in that packet if they are older than one second: avahi-daemon, asked again by a new record
    browser (its known-answer list holds the addresses it refreshed recently), would forget a host's live address
    until its next query."""

    def _add_address_answers(self, name, answer_set, known_answers, now, type_) -> None:
        before = set(answer_set)
        super()._add_address_answers(name, answer_set, known_answers, now, type_)
        if not any(isinstance(record, DNSAddress) for record in set(answer_set) - before):
            return  # every member was a known answer (or the host has none of this type): nothing is sent
        for service in self.registry.async_get_infos_server(name):
            additionals = {r for r in service.dns_addresses(created=now) if r.type != type_}
            for record in service.dns_addresses(created=now):
                if record.type == type_ and record not in answer_set:
                    answer_set[record] = additionals

    def async_response(self, msgs, ucast_source) -> QuestionAnswers:
        """Sends every address record as an answer, never as an additional, and moves each host's address RRset into
        the latest multicast group any of its members is due in, so that all members leave in the same response (never
        earlier than python-zeroconf's rate limit allows for any of them).

        0.47 splits a long response into packets of answers then additionals, and a packet can hold additionals only;
        avahi-daemon drops a response without an answer ("Invalid response packet", avahi/avahi#10). If a host's
        addresses were additionals split across such a packet and the one before, the members in the one before
        carry the cache-flush bit and avahi-daemon flushes the others a second later (a capture of make stress:
        1,562 of 69,615 responses had no answer; one host lost a live address for 0.7 s)."""
        answers = super().async_response(msgs, ucast_source)
        for group in answers:
            addresses = {r for additionals in group.values() for r in additionals if isinstance(r, DNSAddress)}
            for answer, additionals in group.items():
                group[answer] = {r for r in additionals if not isinstance(r, DNSAddress)}
            for record in addresses:
                group.setdefault(record, set())
        groups = [answers.mcast_now, answers.mcast_aggregate, answers.mcast_aggregate_last_second]
        latest: dict[tuple[str, int], int] = {}
        for index, group in enumerate(groups):
            for record in group:
                if isinstance(record, DNSAddress):
                    latest[(record.key, record.type)] = index
        for index, group in enumerate(groups):
            for record in [r for r in group if isinstance(r, DNSAddress) and latest[(r.key, r.type)] != index]:
                groups[latest[(record.key, record.type)]][record] = group.pop(record)
        return answers


def goodbyes(server: str, addresses: list[str]) -> DNSOutgoing:
    """Goodbye packets (TTL 0) for some address records of host name ``server``."""
    out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
    for text in addresses:
        ip = ipaddress.ip_address(text)
        rtype = _TYPE_A if ip.version == 4 else _TYPE_AAAA
        out.add_answer_at_time(DNSAddress(server, rtype, _CLASS_IN | _CLASS_UNIQUE, 0, ip.packed), 0)
    return out


class Responder:
    """Owns one Zeroconf instance and the services of one host name."""

    def __init__(self, hostname: str, addresses: list[str]) -> None:
        self.server = f"{hostname}.local."
        self.addresses = list(addresses)
        self.zc = Zeroconf(interfaces=InterfaceChoice.All, ip_version=IPVersion.All)
        self.zc.query_handler = WholeRRSetQueryHandler(self.zc.registry, self.zc.cache, self.zc.question_history)
        # (full service name) -> (ServiceInfo, spec dict used to build it)
        self.services: dict[str, tuple[ServiceInfo, dict]] = {}

    def _info(self, spec: dict) -> ServiceInfo:
        stype = full_type(spec["type"])
        return ServiceInfo(
            stype,
            f"{spec['name']}.{stype}",
            port=int(spec["port"]),
            properties=txt_bytes(spec.get("txt")),
            server=self._server(spec),
            parsed_addresses=spec.get("addresses") or self.addresses,
        )

    def _announce_types(self, types: list[str]) -> None:
        """Announce the service types (RFC 6763 §9 ``_services._dns-sd._udp`` PTR records), as avahi-daemon does for
        the services it publishes, so that a browser learns a new type at once rather than at its next query."""
        out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
        for stype in sorted(set(types)):
            out.add_answer_at_time(DNSPointer("_services._dns-sd._udp.local.", _TYPE_PTR, _CLASS_IN, 4500, stype), 0)
        self.zc.send(out)

    def _key(self, msg: dict) -> str:
        return f"{msg['name']}.{full_type(msg['type'])}"

    def register(self, msg: dict) -> dict:
        key = self._key(msg)
        if "." in msg["name"]:  # zeroconf 0.47 writes it as two labels: avahi never sees the service
            raise ValueError("python-zeroconf cannot publish instance names containing '.'")
        if key in self.services:
            raise ValueError(f"already registered: {key}")
        spec = {k: msg.get(k) for k in ("name", "type", "port", "txt", "addresses", "server")}
        info = self._info(spec)
        self._announce_types([info.type])
        self.zc.register_service(info)
        self.services[key] = (info, spec)
        return {"service": key}

    def register_all(self, msg: dict) -> dict:
        """Publish several services at once: probed and announced together, as one event on the network (a device
        that comes up with all its services)."""
        specs = [{k: spec.get(k) for k in ("name", "type", "port", "txt", "addresses")} for spec in msg["services"]]
        keys = [self._key(spec) for spec in specs]
        for spec, key in zip(specs, keys, strict=True):
            if "." in spec["name"]:
                raise ValueError("python-zeroconf cannot publish instance names containing '.'")
            if key in self.services:
                raise ValueError(f"already registered: {key}")
        infos = [self._info(spec) for spec in specs]
        self._announce_types([info.type for info in infos])
        with concurrent.futures.ThreadPoolExecutor(len(infos)) as pool:
            list(pool.map(self.zc.register_service, infos))
        for key, info, spec in zip(keys, infos, specs, strict=True):
            self.services[key] = (info, spec)
        return {"services": keys}

    def update(self, msg: dict) -> dict:
        self.batch({"ops": [{**msg, "op": "update"}]})
        return {"service": self._key(msg)}

    def _forget_queued(self, infos: list[ServiceInfo], addresses: bool) -> None:
        """Drops the services' records (and their hosts' address records if ``addresses``) from the answers
        python-zeroconf has queued — aggregated, or held back by its 1 s limit — and from the additionals queued with
        other answers. 0.47 builds an answer when the question comes and sends it 20-120 ms (or up to a second)
        later; for a service withdrawn or changed in between, what it sends then is the old record, after the
        goodbye or the announcement of the new one: every cache that hears it (avahi-daemon's, and the responder's
        own, whose next registration of the name then fails with NonUniqueNameException) holds the old record again,
        a withdrawn service for the PTR's 75 minutes, a withdrawn address until a later answer flushes it. The
        announcement that follows carries the records that are current. In the event loop."""
        records = {r for info in infos for r in (info.dns_pointer(), info.dns_service(), info.dns_text())}
        if addresses:
            records |= {r for info in infos for r in info.dns_addresses()}
        for queue in (self.zc._out_queue, self.zc._out_delay_queue):
            for group in queue.queue:
                for record in records:
                    group.answers.pop(record, None)
                for answer, additionals in group.answers.items():
                    if not additionals.isdisjoint(records):
                        group.answers[answer] = set(additionals) - records

    def _server(self, spec: dict) -> str:
        return spec.get("server") or self.server

    def _host_left(self, spec: dict) -> bool:
        """Whether no registered service is left on the host of ``spec`` (a withdrawn one): its addresses go too."""
        return all(self._server(other) != self._server(spec) for _, other in self.services.values())

    def unregister(self, msg: dict) -> dict:
        self.batch({"ops": [{**msg, "op": "unregister"}]})
        return {"service": self._key(msg)}

    def unregister_all(self, msg: dict) -> dict:
        """Withdraw every service at once (goodbye packets for all of them): a device that leaves."""
        keys = sorted(self.services)

        async def run() -> None:
            self._forget_queued([info for info, _ in self.services.values()], addresses=True)
            self.services.clear()
            await self.zc.async_unregister_all_services()

        self._in_loop(run())
        return {"services": keys}

    def set_addresses(self, msg: dict) -> dict:
        """The responder's own host name gets a new address list: goodbyes for the addresses that went, and the
        services that carry no addresses of their own updated."""
        new = list(msg["addresses"])
        gone = [a for a in self.addresses if a not in new]
        self.addresses = new
        followers = [key for key, (_, spec) in self.services.items() if not spec.get("addresses")]

        async def run() -> None:
            self._forget_queued([self.services[key][0] for key in followers], addresses=True)
            if gone:
                self.zc.async_send(goodbyes(self.server, gone))
            pending = []
            for key in followers:
                spec = self.services[key][1]
                info = self._info(spec)
                self.services[key] = (info, spec)
                pending.append(await self.zc.async_update_service(info))
            await asyncio.gather(*pending)

        self._in_loop(run())
        return {"addresses": self.addresses}

    def _in_loop(self, coroutine: Any) -> None:
        """Runs ``coroutine`` in zeroconf's event loop and waits for it: what it changes before its first await
        happens between two of the loop's turns (no question is answered from a half-made change)."""
        assert self.zc.loop is not None
        asyncio.run_coroutine_threadsafe(coroutine, self.zc.loop).result(timeout=120)

    def batch(self, msg: dict) -> dict:
        """Apply many registrations, updates, withdrawals and host address changes at once, concurrently in
        zeroconf's event loop (its probing and announcements overlap): a stress test's churn, many hosts per
        responder. Checked up front: no op is applied if one names an unknown or duplicate service."""
        ops = list(msg["ops"])
        keys: set[str] = set()
        for op in ops:
            if op["op"] == "host_addresses":
                continue
            key = self._key(op)
            if op["op"] not in ("register", "update", "unregister"):
                raise ValueError(f"unknown op: {op['op']!r}")
            if key in keys or (op["op"] == "register") == (key in self.services):
                raise ValueError(f"{op['op']} {key}: {'unknown' if op['op'] != 'register' else 'registered'}")
            if op["op"] == "register" and "." in op["name"]:
                raise ValueError("python-zeroconf cannot publish instance names containing '.'")
            keys.add(key)
        types = [full_type(op["type"]) for op in ops if op["op"] == "register"]
        if types:
            self._announce_types(types)

        async def run() -> None:
            pending = []
            for op in ops:
                kind = op["op"]
                if kind == "register":
                    spec = {k: op.get(k) for k in ("name", "type", "port", "txt", "addresses", "server")}
                    info = self._info(spec)
                    self.services[self._key(op)] = (info, spec)
                    pending.append(self._register_async(info))
                elif kind == "update":
                    key = self._key(op)
                    old, spec = self.services[key]
                    self._forget_queued([old], addresses="addresses" in op)
                    spec = {**spec, **{f: op[f] for f in ("port", "txt", "addresses") if f in op}}
                    info = self._info(spec)
                    self.services[key] = (info, spec)
                    pending.append(await self.zc.async_update_service(info))
                elif kind == "unregister":
                    info, spec = self.services.pop(self._key(op))
                    self._forget_queued([info], addresses=self._host_left(spec))
                    pending.append(await self.zc.async_unregister_service(info))
                else:
                    pending.extend(await self._host_addresses(op["server"], list(op["addresses"])))
            await asyncio.gather(*pending)

        self._in_loop(run())
        return {"applied": len(ops)}

    async def _register_async(self, info: ServiceInfo) -> None:
        await (await self.zc.async_register_service(info))

    async def _host_addresses(self, server: str, addresses: list[str]) -> list:
        """Goodbyes for the addresses of host name ``server`` that are not in ``addresses``, and its services
        updated to carry ``addresses``."""
        server = server if server.endswith(".") else server + "."
        mine = [(key, spec) for key, (_, spec) in self.services.items() if self._server(spec) == server]
        self._forget_queued([self.services[key][0] for key, _ in mine], addresses=True)
        old = {a for _, spec in mine for a in (spec.get("addresses") or self.addresses)}
        gone = sorted(old - set(addresses))
        if gone:
            self.zc.async_send(goodbyes(server, gone))
        pending = []
        for key, spec in mine:
            spec = {**spec, "addresses": addresses}
            info = self._info(spec)
            self.services[key] = (info, spec)
            pending.append(await self.zc.async_update_service(info))
        return pending

    def handle(self, msg: dict) -> dict:
        cmd = msg.get("cmd")
        if cmd == "list":
            return {"services": sorted(self.services)}
        handler = {
            "register": self.register,
            "register_all": self.register_all,
            "update": self.update,
            "unregister": self.unregister,
            "unregister_all": self.unregister_all,
            "set_addresses": self.set_addresses,
            "batch": self.batch,
        }.get(cmd)
        if handler is None:
            raise ValueError(f"unknown command: {cmd!r}")
        return handler(msg)

    def close(self) -> None:
        self.zc.close()  # unregisters everything, sending goodbye packets


def reply(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hostname", required=True)
    parser.add_argument("--address", action="append", default=[])
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, lambda *_: sys.exit(0))
    responder = Responder(args.hostname, args.address)
    try:
        reply({"ready": True, "server": responder.server})
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                msg = json.loads(line)
                if msg.get("cmd") == "quit":
                    reply({"ok": True, "cmd": "quit"})
                    break
                reply({"ok": True, "cmd": msg.get("cmd"), **responder.handle(msg)})
            except Exception as error:  # reported to the harness, never fatal
                reply({"ok": False, "error": f"{type(error).__name__}: {error}"})
    finally:
        responder.close()


if __name__ == "__main__":
    main()
