import Foundation
import NIOCore

/// A method call as received by a server: its name, flags, and the raw message to decode its parameters from.
public struct VarlinkCall: Sendable {
    /// The fully qualified method name, e.g. `io.peerscan.GetSnapshot`.
    public var method: String
    /// The caller wants no reply.
    public var oneway: Bool
    /// The caller accepts several replies (`continues: true` on all but the last).
    public var more: Bool
    /// The caller asks to take over the connection with another protocol (not supported here).
    public var upgrade: Bool
    /// The whole message, without its NUL terminator.
    public var message: Data

    private struct Envelope: Decodable {
        var method: String
        var oneway: Bool?
        var more: Bool?
        var upgrade: Bool?
    }

    private struct ParametersEnvelope<Parameters: Decodable>: Decodable {
        var parameters: Parameters?
    }

    /// Parses a message.
    /// - Throws: ``VarlinkProtocolError`` if it is not a JSON object with a string `method`.
    public init(message: Data) throws(VarlinkProtocolError) {
        let envelope: Envelope
        do {
            envelope = try JSONDecoder().decode(Envelope.self, from: message)
        } catch {
            throw VarlinkProtocolError.invalidMessage(Self.describe(error))
        }
        self.method = envelope.method
        self.oneway = envelope.oneway ?? false
        self.more = envelope.more ?? false
        self.upgrade = envelope.upgrade ?? false
        self.message = message
    }

    /// The interface part of the method name (`io.peerscan` for `io.peerscan.GetSnapshot`).
    public var interface: String {
        guard let dot = method.lastIndex(of: ".") else { return "" }
        return String(method[..<dot])
    }

    /// The method's own name (`GetSnapshot`).
    public var methodName: String {
        guard let dot = method.lastIndex(of: ".") else { return method }
        return String(method[method.index(after: dot)...])
    }

    /// Decodes the call's parameters; a missing `parameters` object decodes as an empty one.
    /// - Throws: ``VarlinkError/invalidParameter(_:)`` naming the offending parameter.
    public func parameters<Parameters: Decodable>(as type: Parameters.Type) throws(VarlinkError) -> Parameters {
        do {
            if let parameters = try JSONDecoder().decode(ParametersEnvelope<Parameters>.self, from: message).parameters
            {
                return parameters
            }
            return try JSONDecoder().decode(Parameters.self, from: Data("{}".utf8))
        } catch let error as DecodingError {
            throw VarlinkError.invalidParameter(Self.parameterName(error))
        } catch {
            throw VarlinkError.invalidParameter("parameters")
        }
    }

    /// The names of the call's parameters, sorted; none when it has no `parameters` object.
    ///
    /// - Throws: ``VarlinkError/invalidParameter(_:)`` naming `parameters` if they are not a JSON object.
    public func parameterNames() throws(VarlinkError) -> [String] {
        struct Names: Decodable {
            var names: [String]
            init(from decoder: any Decoder) throws {
                names = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
            }
        }
        struct Envelope: Decodable { var parameters: Names? }
        do {
            return (try JSONDecoder().decode(Envelope.self, from: message).parameters?.names ?? []).sorted()
        } catch {
            throw VarlinkError.invalidParameter("parameters")
        }
    }

    /// The name of the parameter a decoding error is about.
    static func parameterName(_ error: DecodingError) -> String {
        let path: [any CodingKey]
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            path = context.codingPath
        case .keyNotFound(let key, let context):
            path = context.codingPath + [key]
        @unknown default:
            path = []
        }
        let names = path.map(\.stringValue).filter { $0 != "parameters" && Int($0) == nil }
        return names.first ?? "parameters"
    }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            return context.debugDescription
        case .keyNotFound(let key, _):
            return "missing \"\(key.stringValue)\""
        @unknown default:
            return "\(error)"
        }
    }
}

/// A reply as received by a client.
public struct VarlinkReply: Sendable {
    /// More replies follow for this call.
    public var continues: Bool
    /// The error's qualified name, for an error reply.
    public var error: String?
    /// The whole message, without its NUL terminator.
    public var message: Data

    private struct Envelope: Decodable {
        var continues: Bool?
        var error: String?
    }

    private struct ParametersEnvelope<Parameters: Decodable>: Decodable {
        var parameters: Parameters?
    }

    /// Parses a reply.
    /// - Throws: ``VarlinkProtocolError`` if it is not a JSON object.
    public init(message: Data) throws(VarlinkProtocolError) {
        do {
            let envelope = try JSONDecoder().decode(Envelope.self, from: message)
            self.continues = envelope.continues ?? false
            self.error = envelope.error
            self.message = message
        } catch {
            throw VarlinkProtocolError.invalidMessage(VarlinkCall.describe(error))
        }
    }

    /// Decodes the reply's parameters; a missing `parameters` object decodes as an empty one.
    /// - Throws: ``VarlinkProtocolError/invalidMessage(_:)`` if they do not match `type`.
    public func parameters<Parameters: Decodable>(as type: Parameters.Type) throws(VarlinkProtocolError) -> Parameters {
        do {
            if let parameters = try JSONDecoder().decode(ParametersEnvelope<Parameters>.self, from: message).parameters
            {
                return parameters
            }
            return try JSONDecoder().decode(Parameters.self, from: Data("{}".utf8))
        } catch {
            throw VarlinkProtocolError.invalidMessage("reply parameters: \(VarlinkCall.describe(error))")
        }
    }

    /// The reply's `parameters` object exactly as received (`{}` if the reply has none): to decode with a decoder of
    /// the caller's choice, or to print as it came, fields the caller does not know included.
    ///
    /// A slice of ``message``, sharing its bytes (its indices are the message's, not from 0): a snapshot's reply is
    /// ~5 MB at 10,000 devices, and a copy of it per reply is what made peerscan-web's memory peak (issue 37).
    ///
    /// - Complexity: O(n) in the size of the message.
    public var rawParameters: Data {
        guard let range = JSONMemberScanner.valueRange(of: "parameters", inObject: message) else {
            return Data("{}".utf8)
        }
        return message[range]
    }

    /// The error reply as a ``VarlinkError``, or `nil` for a normal reply. String parameters are kept.
    public var varlinkError: VarlinkError? {
        guard let error else { return nil }
        let parameters = (try? self.parameters(as: [String: LenientString].self)) ?? [:]
        return VarlinkError(error, parameters: parameters.compactMapValues(\.value))
    }
}

/// Any key of a JSON object.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Decodes a string, and anything else as `nil`, so that error parameters of any shape can be read.
private struct LenientString: Decodable {
    var value: String?
    init(from decoder: any Decoder) throws {
        value = try? decoder.singleValueContainer().decode(String.self)
    }
}

/// Finds a member's value in a JSON object without decoding it: the bytes as they are.
enum JSONMemberScanner {
    /// The range of the value of the top-level member `name` in `json`, a JSON object; `nil` if it has no such member
    /// or is not an object. Keys are compared as written (a key spelled with escapes does not match). Meant for
    /// messages already checked to be JSON: on malformed input it returns `nil` or a meaningless range, never traps.
    ///
    /// - Complexity: O(n) in the size of `json`.
    static func valueRange(of name: String, inObject json: Data) -> Range<Data.Index>? {
        let key = Array(name.utf8)
        return json.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Range<Int>? in
            var position = 0
            func skipSpace() {
                while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
            }
            /// Moves past a string that starts at `position`; returns the range of its content.
            func skipString() -> Range<Int> {
                let start = position + 1
                position = start
                while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                    position += bytes[position] == UInt8(ascii: "\\") ? 2 : 1
                }
                let end = min(position, bytes.count)
                position = min(position + 1, bytes.count)  // past the closing quote, never past the end
                return start..<end
            }
            /// Moves past the value that starts at `position`.
            func skipValue() {
                var depth = 0
                while position < bytes.count {
                    switch bytes[position] {
                    case UInt8(ascii: "\""):
                        _ = skipString()
                        if depth == 0 { return }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        if depth == 0 { return }  // the end of the enclosing object: a scalar ended
                        depth -= 1
                        if depth == 0 {
                            position += 1
                            return
                        }
                    case UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D:
                        if depth == 0 { return }
                    default:
                        break
                    }
                    position += 1
                }
            }
            skipSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else { return nil }
            position += 1
            while true {
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
                let member = skipString()
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { return nil }
                position += 1
                skipSpace()
                let start = position
                skipValue()
                if bytes[member].elementsEqual(key) { return start..<position }
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ",") else { return nil }
                position += 1
            }
        }.map { json.startIndex + $0.lowerBound..<json.startIndex + $0.upperBound }
    }
}

/// Encodes outgoing messages as JSON followed by the NUL terminator.
package enum VarlinkEncoding {
    private struct Reply<Parameters: Encodable>: Encodable {
        var parameters: Parameters
        var continues: Bool?
        var error: String?
    }

    private struct Call<Parameters: Encodable>: Encodable {
        var method: String
        var parameters: Parameters
        var more: Bool?
        var oneway: Bool?
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    package static func reply(_ parameters: some Encodable, continues: Bool) throws -> ByteBuffer {
        frame(try encoder.encode(Reply(parameters: parameters, continues: continues ? true : nil, error: nil)))
    }

    /// A reply whose parameters `writeParameters` writes into the frame itself (a JSON object): no copy of them.
    package static func reply<Failure: Error>(
        continues: Bool,
        writingParameters writeParameters: (inout ByteBuffer) throws(Failure) -> Void
    ) throws(Failure) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeString(continues ? #"{"continues":true,"parameters":"# : #"{"parameters":"#)
        try writeParameters(&buffer)
        buffer.writeString("}")
        buffer.writeInteger(UInt8(0))
        return buffer
    }

    package static func reply(encodedParameters: Data, continues: Bool) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(encodedParameters.count + 40)
        buffer.writeString(continues ? #"{"continues":true,"parameters":"# : #"{"parameters":"#)
        buffer.writeBytes(encodedParameters)
        buffer.writeString("}")
        buffer.writeInteger(UInt8(0))
        return buffer
    }

    package static func error(_ error: VarlinkError) -> ByteBuffer {
        // A [String: String] always encodes.
        frame(try! encoder.encode(Reply(parameters: error.parameters, continues: nil, error: error.name)))
    }

    package static func call(
        _ method: String,
        _ parameters: some Encodable,
        more: Bool,
        oneway: Bool
    ) throws -> ByteBuffer {
        frame(
            try encoder.encode(
                Call(method: method, parameters: parameters, more: more ? true : nil, oneway: oneway ? true : nil)
            )
        )
    }

    private static func frame(_ json: Data) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(json.count + 1)
        buffer.writeBytes(json)
        buffer.writeInteger(UInt8(0))
        return buffer
    }
}
