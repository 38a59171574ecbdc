extension PeerScanWire {
    /// The interface definition: the text of `io.peerscan.varlink` next to this file (a test checks they are equal),
    /// served by `org.varlink.service.GetInterfaceDescription`.
    public static let definition = """
        # peerscan: the mDNS/DNS-SD devices on the local networks as a snapshot of
        # sections and items keyed by stable identifiers, and the changesets that take
        # one snapshot to the next.
        #
        # A snapshot has a "config" section (the scanning switch and this host) and,
        # while scanning is on, a "networks" section (one item per device). Every item
        # has an id (a lowercase UUID; a device's is uuid5 of its host name, see the
        # README) and a kind. A changeset lists, for each kind of change, the item or
        # section ids with their old ("from") and new ("at", "to") positions; index
        # paths are [section, item]. Replay: remove itemDeletes and itemMoves sources
        # (highest first), remove sectionDeletes and sectionMoves sources (highest
        # first), insert sectionInserts and moved sections (lowest first), insert
        # itemInserts and moved items (lowest first), then replace itemUpdates.
        interface io.peerscan

        # A DNS-SD service of a device. txt maps each TXT key to its value, null for a
        # key without '='.
        type Service (
          name: string,
          type: string,
          domain: string,
          port: int,
          txt: [string]?string
        )

        # An item of the snapshot. Fields by kind:
        #   scanning: enabled
        #   host:     hostName (null until known), avahiState, avahiReason (null unless
        #             failure or unavailable), interfaces
        #   peer:     hostName, displayName, addresses (IPv4, then IPv6; link-local
        #             with %interface), interfaces, services
        type Item (
          id: string,
          kind: (scanning, host, peer),
          enabled: ?bool,
          hostName: ?string,
          avahiState: ?(running, connecting, registering, collision, failure, unavailable),
          avahiReason: ?string,
          displayName: ?string,
          addresses: ?[]string,
          interfaces: ?[]string,
          services: ?[]Service
        )

        type Section (
          id: (config, networks),
          items: []Item
        )

        type Snapshot (
          sections: []Section
        )

        # A section with its position: old for deletes ("from"), new for inserts and
        # reloads ("at").
        type SectionPosition (
          id: string,
          from: ?int,
          at: ?int
        )

        type SectionMove (
          id: string,
          from: int,
          to: int
        )

        # An item removed, by its old index path [section, item].
        type ItemDelete (
          id: string,
          from: []int
        )

        # An item moved, from its old to its new index path.
        type ItemMove (
          id: string,
          from: []int,
          to: []int
        )

        # An item inserted or updated, with its new content and new index path.
        type ItemPayload (
          item: Item,
          at: []int
        )

        # The changes that take the snapshot at sequence-1 to the one at sequence.
        # A missing list is empty.
        type Changeset (
          sectionDeletes: ?[]SectionPosition,
          sectionInserts: ?[]SectionPosition,
          sectionMoves: ?[]SectionMove,
          sectionReloads: ?[]SectionPosition,
          itemDeletes: ?[]ItemDelete,
          itemInserts: ?[]ItemPayload,
          itemMoves: ?[]ItemMove,
          itemUpdates: ?[]ItemPayload
        )

        # The current snapshot. epoch identifies this run of the daemon; sequence
        # counts the changesets published in it.
        method GetSnapshot() -> (epoch: string, sequence: int, snapshot: Snapshot)

        # Call with more: the first reply carries the snapshot at sequence; each later
        # reply one changeset, taking sequence-1 to sequence. Give epoch and since from
        # an earlier connection to resume: if the daemon still holds every changeset
        # after since, they follow instead of a snapshot. resync is true on a reply
        # that carries a snapshot because this client fell behind (its queued
        # changesets were dropped) or could not be resumed. Without more, the method
        # replies once with the snapshot.
        method Monitor(epoch: ?string, since: ?int) -> (
          epoch: string,
          sequence: int,
          snapshot: ?Snapshot,
          changes: ?Changeset,
          resync: ?bool
        )

        # Switch scanning on or off; replies with the sequence at which the switch is
        # in the snapshot. Allowed for root and members of the daemon's control group.
        method SetScanning(enabled: bool) -> (sequence: int)

        # The caller may not switch scanning.
        error PermissionDenied (reason: string)

        """
}
