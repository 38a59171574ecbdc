/// The identity of a service, independent of the interface and protocol it was seen on.
public struct ServiceKey: Hashable, Sendable, Codable, Comparable {
    /// The instance name.
    public var name: String
    /// The service type, e.g. `_ssh._tcp`.
    public var type: String
    /// The domain, e.g. `local`.
    public var domain: String

    /// Creates a key.
    public init(name: String, type: String, domain: String) {
        self.name = name
        self.type = type
        self.domain = domain
    }

    /// Orders by type, then name, then domain.
    public static func < (lhs: ServiceKey, rhs: ServiceKey) -> Bool {
        (lhs.type, lhs.name, lhs.domain) < (rhs.type, rhs.name, rhs.domain)
    }
}
