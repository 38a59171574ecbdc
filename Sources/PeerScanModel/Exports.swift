// The wire's types are built of the terms sources report in (a device's TXT entries and service keys, the host's
// source state, a network's security and bands, a Bluetooth address's kind): a client of the wire gets them with it.

@_exported import DiscoveryTerms
