/// An IP protocol family: what an address, a browse row or a record was seen over.
public enum IPProtocol: String, Hashable, Sendable, Codable, CaseIterable {
    case ipv4, ipv6
}
