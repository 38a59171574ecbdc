import Glibc
import NIOCore
import Varlink

/// The credentials of the process at the other end of a Unix socket, as the kernel recorded them when it connected
/// (`SO_PEERCRED`): they cannot be forged by the peer.
public struct PeerCredentials: Hashable, Sendable, CustomStringConvertible {
    /// The peer's process id.
    public var pid: Int32
    /// The peer's user id.
    public var uid: UInt32
    /// The peer's group id.
    public var gid: UInt32
    /// The peer's supplementary groups, as the kernel recorded them (`SO_PEERGROUPS`; empty if it could not tell).
    public var groups: [UInt32]

    /// Creates credentials.
    public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    public var description: String { "pid=\(pid) uid=\(uid) gid=\(gid)" }

    /// Whether the peer is root, or the named group is its group or one of its supplementary groups — all as the
    /// kernel recorded them for the connection, so they cannot be forged.
    /// - Parameter group: A group name; `nil` admits root only.
    public func isRootOrMember(of group: String?) -> Bool {
        if uid == 0 { return true }
        guard let group, let groupID = Self.groupID(named: group) else { return false }
        return gid == groupID || groups.contains(groupID)
    }

    /// The id of a group, with the reentrant lookup (connections are served on several threads at once).
    static func groupID(named name: String) -> UInt32? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16_384)
        guard getgrnam_r(name, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.gr_gid
    }

    /// The layout of Linux's `struct ucred`.
    private struct UCred: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// Room for 64 supplementary group ids, read with `SO_PEERGROUPS` (Linux 4.13). The kernel leaves unused
    /// entries zero; gid 0 is therefore never taken from this list (root's group would need root, which passes anyway
    /// as the uid or the primary gid). A peer with more groups gets ERANGE, and only its primary group counts.
    private struct PeerGroups: Sendable {
        var ids:
            (
                UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
                UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
                UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
                UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32,
                UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32
            )

        var list: [UInt32] {
            withUnsafeBytes(of: ids) { Array($0.bindMemory(to: UInt32.self)) }.filter { $0 != 0 }
        }
    }

    private static let peerGroupsOption: CInt = 59  // SO_PEERGROUPS

    /// Reads the credentials of a connected Unix socket channel; `nil` where the channel cannot tell.
    static func of(_ channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let credentials: EventLoopFuture<UCred> = provider.unsafeGetSocketOption(
            level: .socket,
            name: NIOBSDSocket.Option(rawValue: SO_PEERCRED)
        )
        let groups: EventLoopFuture<PeerGroups?> = provider.unsafeGetSocketOption(
            level: .socket,
            name: NIOBSDSocket.Option(rawValue: peerGroupsOption)
        ).map { Optional($0) }.recover { _ in nil }
        return credentials.and(groups).map { credentials, groups in
            PeerCredentials(
                pid: credentials.pid,
                uid: credentials.uid,
                gid: credentials.gid,
                groups: groups?.list ?? []
            )
        }.recover { _ in nil }
    }
}
