import Glibc
import NIOCore

/// The credentials of the process at the other end of a Unix socket, as the kernel recorded them when it connected
/// (`SO_PEERCRED`): they cannot be forged by the peer.
public struct PeerCredentials: Hashable, Sendable, CustomStringConvertible {
    /// The peer's process id.
    public var pid: Int32
    /// The peer's user id.
    public var uid: UInt32
    /// The peer's group id.
    public var gid: UInt32

    /// Creates credentials.
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    public var description: String { "pid=\(pid) uid=\(uid) gid=\(gid)" }

    /// Whether the peer is root or a member (primary or supplementary) of the named group.
    /// - Parameter group: A group name; `nil` admits root only.
    public func isRootOrMember(of group: String?) -> Bool {
        if uid == 0 { return true }
        guard let group, let entry = getgrnam(group) else { return false }
        let groupID = entry.pointee.gr_gid
        if gid == groupID { return true }
        guard let user = getpwuid(uid), let userName = user.pointee.pw_name else { return false }
        if user.pointee.pw_gid == groupID { return true }
        var member = entry.pointee.gr_mem
        while let name = member?.pointee {
            if strcmp(name, userName) == 0 { return true }
            member = member?.successor()
        }
        return false
    }

    /// The layout of Linux's `struct ucred`.
    private struct UCred: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// Reads the credentials of a connected Unix socket channel; `nil` where the channel cannot tell.
    static func of(_ channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let future: EventLoopFuture<UCred> = provider.unsafeGetSocketOption(
            level: .socket,
            name: NIOBSDSocket.Option(rawValue: SO_PEERCRED)
        )
        return future.map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }.recover { _ in nil }
    }
}
