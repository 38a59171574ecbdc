import NIOConcurrencyHelpers

/// How many connections each client address has open, bounded: a client past the bound is refused, so that no one
/// address (one browser's many tabs, or a flood) takes every connection.
public struct ConnectionCounts: Sendable {
    /// The connections one address may have open at once.
    public static let defaultLimitPerAddress = 16

    /// The bound.
    public let limitPerAddress: Int
    private var open: [String: Int] = [:]

    /// No connection open yet.
    public init(limitPerAddress: Int = Self.defaultLimitPerAddress) {
        self.limitPerAddress = limitPerAddress
    }

    /// Counts a new connection from `address`; `false` (nothing counted) if the address is at its bound.
    public mutating func open(from address: String) -> Bool {
        let count = open[address, default: 0]
        guard count < limitPerAddress else { return false }
        open[address] = count + 1
        return true
    }

    /// Counts a connection from `address` as closed.
    public mutating func close(from address: String) {
        guard let count = open[address] else { return }
        open[address] = count > 1 ? count - 1 : nil
    }

    /// The connections `address` has open.
    public func openCount(from address: String) -> Int { open[address, default: 0] }
}

/// ``ConnectionCounts`` shared by the listeners' accept loops.
final class ConnectionLimiter: Sendable {
    private let counts: NIOLockedValueBox<ConnectionCounts>

    init(limitPerAddress: Int) {
        counts = NIOLockedValueBox(ConnectionCounts(limitPerAddress: limitPerAddress))
    }

    func open(from address: String) -> Bool { counts.withLockedValue { $0.open(from: address) } }
    func close(from address: String) { counts.withLockedValue { $0.close(from: address) } }
}
