/// Why the registry's database could not be used.
public enum RegistryError: Error, CustomStringConvertible, Sendable {
    /// The database could not be opened or read: not a database, corrupt, unreadable.
    case unreadable(path: String, reason: String)
    /// The database was written by a newer peerscan: its schema has migrations this one does not know.
    case newerSchema(path: String, unknownMigrations: [String])
    /// A write failed (a full disk, say); what was not written stays in memory and is written later.
    case writeFailed(path: String, reason: String)
    /// The file could not be moved aside.
    case moveAsideFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path): cannot be read as a registry: \(reason)"
        case .newerSchema(let path, let unknown):
            "\(path): written by a newer peerscan (unknown migrations: \(unknown.joined(separator: ", ")))"
        case .writeFailed(let path, let reason): "\(path): write failed: \(reason)"
        case .moveAsideFailed(let path, let reason): "\(path): cannot be moved aside: \(reason)"
        }
    }
}
