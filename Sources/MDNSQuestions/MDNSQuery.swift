import Glibc
internal import POSIXText

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
        let name = try encodedName(hostName)
        // Header: ID, flags 0 (a standard query), one question per record type, no answers, no records of authority
        // or additional records.
        var message: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), 0, 0, 0, 2, 0, 0, 0, 0, 0, 0]
        for type in [recordTypeA, recordTypeAAAA] {
            message += name
            message += [UInt8(type >> 8), UInt8(type & 0xFF), 0, classIN]
        }
        return message
    }

    /// `hostName` as DNS writes it: each label after its length, then a 0 (a final dot changes nothing).
    ///
    /// - Throws: ``MDNSQuestionError/unusableHostName(_:)`` for a name that is not a DNS name (an empty label, a label
    ///   over 63 bytes, a name over 255).
    static func encodedName(_ hostName: String) throws(MDNSQuestionError) -> [UInt8] {
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
        return name
    }

    /// Whether `datagram` answers the query with this ID for `name` (as ``encodedName(_:)`` writes it): a response
    /// (QR set), without error, whose answer section holds an A or AAAA record (class IN; the cache-flush bit
    /// allowed) of `name`, compared as DNS does (ASCII letters in either case). Names may be compressed (RFC 1035
    /// §4.1.4). A header alone, or an answer for another name, is none; so is a datagram that ends before its
    /// sections do.
    ///
    /// - Complexity: O(n) in the size of `datagram` (a compression pointer must point before the last one followed,
    ///   so no name is read twice over).
    static func isAnswer(_ datagram: [UInt8], to id: UInt16, for name: [UInt8]) -> Bool {
        func u16(_ offset: Int) -> Int { Int(datagram[offset]) << 8 | Int(datagram[offset + 1]) }
        guard datagram.count >= 12 else { return false }
        let isResponse = datagram[2] & 0x80 != 0
        let responseCode = datagram[3] & 0x0F
        guard u16(0) == id, isResponse, responseCode == 0 else { return false }
        var offset = 12
        for _ in 0..<u16(4) {  // the questions, repeated in a legacy unicast answer (RFC 6762 §6.7)
            guard let (_, next) = readName(datagram, at: offset), next + 4 <= datagram.count else { return false }
            offset = next + 4
        }
        for _ in 0..<u16(6) {
            guard let (owner, next) = readName(datagram, at: offset), next + 10 <= datagram.count else { return false }
            let type = u16(next)
            let recordClass = u16(next + 2) & 0x7FFF
            let length = u16(next + 8)
            guard next + 10 + length <= datagram.count else { return false }
            let isAddress = (type == Int(recordTypeA) && length == 4) || (type == Int(recordTypeAAAA) && length == 16)
            if isAddress && recordClass == Int(classIN) && sameName(owner, name) { return true }
            offset = next + 10 + length
        }
        return false
    }

    /// The name at `offset` of `message`, uncompressed (each label after its length, then a 0), and the offset that
    /// follows it where it is stored; `nil` if it is malformed: it runs past the end, is longer than 255 bytes, has a
    /// label type other than a plain label or a pointer, or a pointer that does not point before the last one.
    static func readName(_ message: [UInt8], at offset: Int) -> (name: [UInt8], next: Int)? {
        var name: [UInt8] = []
        var position = offset
        var next: Int?
        var bound = offset  // a pointer must point before this: the targets decrease, so reading ends
        while position < message.count {
            let length = Int(message[position])
            switch length & 0xC0 {
            case 0x00 where length == 0:
                name.append(0)
                return name.count <= 255 ? (name, next ?? position + 1) : nil
            case 0x00:
                guard position + length < message.count, name.count + 1 + length < 255 else { return nil }
                name += message[position...(position + length)]
                position += 1 + length
            case 0xC0:
                guard position + 1 < message.count else { return nil }
                let target = (length & 0x3F) << 8 | Int(message[position + 1])
                guard target < bound else { return nil }
                if next == nil { next = position + 2 }
                bound = target
                position = target
            default:
                return nil  // 0x40, 0x80: label types mDNS does not use
            }
        }
        return nil
    }

    /// Whether two uncompressed names are the same, ASCII letters compared in either case (RFC 1035 §2.3.3; other
    /// bytes, UTF-8 ones too, as they are; length bytes are at most 63, below every letter).
    private static func sameName(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        func folded(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
        return left.count == right.count && zip(left, right).allSatisfy { folded($0) == folded($1) }
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
        case .system(let operation, let code):
            return "\(operation): \(POSIXText.errorDescription(code)) (errno \(code))"
        }
    }
}
