import Glibc
import Testing
import Varlink
import VarlinkServer

/// `isRootOrMember(of:)` against this machine's user and group databases. The groups and users are looked up, not
/// assumed; a case the machine cannot show (no group with listed members) is skipped. Serialized: the `getgr*` and
/// `getpw*` functions share static buffers.
@Suite("PeerCredentials: root or member of a group", .serialized)
struct PeerCredentialsTests {
    /// A uid no account has.
    static let strangerUID: UInt32 = 3_999_999_001
    /// A gid no group has.
    static let strangerGID: UInt32 = 3_999_999_002
    static let missingGroup = "peerscan-no-such-group"

    @Test("root is admitted, whatever the group, even none or one that does not exist")
    func root() {
        let root = PeerCredentials(pid: 1, uid: 0, gid: Self.strangerGID)
        #expect(root.isRootOrMember(of: nil))
        #expect(root.isRootOrMember(of: Self.missingGroup))
        #expect(root.isRootOrMember(of: "root"))
    }

    @Test("a group that does not exist admits nobody but root")
    func missingGroup() throws {
        try #require(getgrnam(Self.missingGroup) == nil)
        #expect(
            !PeerCredentials(pid: 1, uid: Self.strangerUID, gid: Self.strangerGID).isRootOrMember(of: Self.missingGroup)
        )
        #expect(!PeerCredentials(pid: 1, uid: 1, gid: 0).isRootOrMember(of: Self.missingGroup))
        #expect(!PeerCredentials(pid: 1, uid: Self.strangerUID, gid: 0).isRootOrMember(of: nil), "nil admits root only")
    }

    @Test("a non-root peer whose gid is the group's is admitted; with another gid it is not")
    func primaryGroupOfTheConnection() throws {
        let (name, gid) = try #require(AccountDatabase.someGroup(), "no group with a gid other than 0 on this machine")
        #expect(PeerCredentials(pid: 1, uid: Self.strangerUID, gid: gid).isRootOrMember(of: name))
        #expect(!PeerCredentials(pid: 1, uid: Self.strangerUID, gid: Self.strangerGID).isRootOrMember(of: name))
        #expect(!PeerCredentials(pid: 1, uid: Self.strangerUID, gid: gid).isRootOrMember(of: Self.missingGroup))
    }

    @Test("a peer with the group among its supplementary groups (as the kernel recorded them) is admitted")
    func supplementaryGroupOfTheConnection() throws {
        let (name, gid) = try #require(AccountDatabase.someGroup(), "no group with a gid other than 0 on this machine")
        #expect(
            PeerCredentials(pid: 1, uid: Self.strangerUID, gid: Self.strangerGID, groups: [7, gid]).isRootOrMember(
                of: name
            )
        )
        #expect(
            !PeerCredentials(pid: 1, uid: Self.strangerUID, gid: Self.strangerGID, groups: [7]).isRootOrMember(of: name)
        )
    }

    @Test("membership comes from the connection, not from the account database")
    func theAccountDatabaseIsNotConsulted() throws {
        // A user whose account lists the group, connecting without it (e.g. before logging in again after
        // `usermod -aG`), is not admitted: the kernel's record of the connection is what counts.
        guard let (uid, group) = AccountDatabase.someUser() else { return }
        #expect(!PeerCredentials(pid: 1, uid: uid, gid: Self.strangerGID).isRootOrMember(of: group))
    }
}

/// Looking up this machine's user and group databases.
enum AccountDatabase {
    /// A group with a gid other than 0.
    static func someGroup() -> (name: String, gid: UInt32)? {
        setgrent()
        defer { endgrent() }
        while let entry = getgrent() {
            if entry.pointee.gr_gid != 0, let name = entry.pointee.gr_name {
                return (String(cString: name), entry.pointee.gr_gid)
            }
        }
        return nil
    }

    /// A non-root user and the name of its primary group.
    static func someUser() -> (uid: UInt32, group: String)? {
        var users: [(UInt32, UInt32)] = []
        setpwent()
        while let entry = getpwent() {
            if entry.pointee.pw_uid != 0 { users.append((entry.pointee.pw_uid, entry.pointee.pw_gid)) }
        }
        endpwent()
        for (uid, gid) in users {
            if let group = getgrgid(gid), let name = group.pointee.gr_name { return (uid, String(cString: name)) }
        }
        return nil
    }

    /// A non-root user listed as a member of a group that is not its primary one, and that group's name.
    static func supplementaryMember() -> (uid: UInt32, group: String)? {
        var memberships: [(user: String, group: String, gid: UInt32)] = []
        setgrent()
        while let entry = getgrent() {
            guard let name = entry.pointee.gr_name else { continue }
            var member = entry.pointee.gr_mem
            while let user = member?.pointee {
                memberships.append((String(cString: user), String(cString: name), entry.pointee.gr_gid))
                member = member?.successor()
            }
        }
        endgrent()
        for membership in memberships {
            if let user = getpwnam(membership.user), user.pointee.pw_uid != 0, user.pointee.pw_gid != membership.gid {
                return (user.pointee.pw_uid, membership.group)
            }
        }
        return nil
    }
}
