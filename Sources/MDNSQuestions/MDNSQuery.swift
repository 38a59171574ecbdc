import Glibc

/// The one mDNS message the question source sends, and the test its answers must pass: pure bytes, no I/O.
///
/// A *one-shot* query (RFC 6762 §5.1): a standard DNS query for a host name's A and AAAA records, sent to the mDNS
/// group from a port other than 5353, with no known answers, so that the host's responder answers it by unicast to
/// that port, echoing the query's ID (§6.7, legacy unicast) — whatever its records' TTLs, and whatever a cache holds.
enum MDNSQuery {
    /// The mDNS port.
    static let port: UInt16 = 5353
    /// The mDNS groups, IPv4 and IPv6 (link-local scope).
    static let ipv4Group = "224.0.0.251"
    static let ipv6Group = "ff02::fb"

    /// The query for `hostName`'s A and AAAA records, with this ID.
    ///
    /// - Throws: ``MDNSQuestionError/unusableHostName(_:)`` for a name that is not a DNS name (an empty label, a label
    ///   over 63 bytes, a name over 255).
    static func message(id: UInt16, hostName: String) throws(MDNSQuestionError) -> [UInt8] {
        let labels = hostName.split(separator: ".", omittingEmptySubsequences: false).map { Array($0.utf8) }
        var name: [UInt8] = []
        for label in labels.enumerated() {
            if label.element.isEmpty && label.offset == labels.count - 1 && label.offset > 0 { break }  // a final dot
            guard (1...63).contains(label.element.count) else { throw .unusableHostName(hostName) }
            name.append(UInt8(label.element.count))
            name += label.element
        }
        name.append(0)
        guard name.count <= 255 else { throw .unusableHostName(hostName) }
        // Header: ID, flags 0 (a standard query), one question per record type, no answers, no records of authority
        // or additional records.
        var message: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), 0, 0, 0, 2, 0, 0, 0, 0, 0, 0]
        for type in [recordTypeA, recordTypeAAAA] {
            message += name
            message += [UInt8(type >> 8), UInt8(type & 0xFF), 0, classIN]
        }
        return message
    }

    /// Whether `datagram` answers the query with this ID: a response (QR set), no error, at least one answer.
    static func isAnswer(_ datagram: [UInt8], to id: UInt16) -> Bool {
        guard datagram.count >= 12 else { return false }
        let answerID = UInt16(datagram[0]) << 8 | UInt16(datagram[1])
        let isResponse = datagram[2] & 0x80 != 0
        let responseCode = datagram[3] & 0x0F
        let answers = UInt16(datagram[6]) << 8 | UInt16(datagram[7])
        return answerID == id && isResponse && responseCode == 0 && answers > 0
    }

    private static let recordTypeA: UInt16 = 1
    private static let recordTypeAAAA: UInt16 = 28
    private static let classIN: UInt8 = 1
}

/// A question could not be asked.
public enum MDNSQuestionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The host name is not a DNS name.
    case unusableHostName(String)
    /// A socket call failed: what was being done, and `errno`.
    case system(operation: String, code: Int32)

    public var description: String {
        switch self {
        case .unusableHostName(let name): return "not a DNS host name: \(name)"
        case .system(let operation, let code): return "\(operation): \(String(cString: strerror(code))) (errno \(code))"
        }
    }
}
