/// The state of a discovery source's connection to the daemon it browses through (Avahi's server state).
public enum SourceState: Hashable, Sendable {
    /// Browsing works.
    case running
    /// Connecting to the daemon, or waiting for it to come back.
    case connecting
    /// The daemon is registering this host's records.
    case registering
    /// The daemon found a host name collision.
    case collision
    /// The daemon failed; `reason` says why.
    case failure(reason: String)
    /// The daemon cannot be reached at all (no D-Bus, not installed); the source retries.
    case unavailable(reason: String)

    /// Whether browsing results can be trusted to be current.
    public var isRunning: Bool { self == .running }
}

extension SourceState {
    /// The state's name, as in the `avahiState` field.
    public var name: String {
        switch self {
        case .running: "running"
        case .connecting: "connecting"
        case .registering: "registering"
        case .collision: "collision"
        case .failure: "failure"
        case .unavailable: "unavailable"
        }
    }

    /// Why the daemon failed or is unavailable; `nil` otherwise.
    public var reason: String? {
        switch self {
        case .failure(let reason), .unavailable(let reason): reason
        default: nil
        }
    }
}
