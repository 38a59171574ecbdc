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

    /// The error reply as a ``VarlinkError``, or `nil` for a normal reply. String parameters are kept.
    public var varlinkError: VarlinkError? {
        guard let error else { return nil }
        let parameters = (try? self.parameters(as: [String: LenientString].self)) ?? [:]
        return VarlinkError(error, parameters: parameters.compactMapValues(\.value))
    }
}

/// Decodes a string, and anything else as `nil`, so that error parameters of any shape can be read.
private struct LenientString: Decodable {
    var value: String?
    init(from decoder: any Decoder) throws {
        value = try? decoder.singleValueContainer().decode(String.self)
    }
}

/// Encodes outgoing messages as JSON followed by the NUL terminator.
enum VarlinkEncoding {
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

    static func reply(_ parameters: some Encodable, continues: Bool) throws -> ByteBuffer {
        frame(try encoder.encode(Reply(parameters: parameters, continues: continues ? true : nil, error: nil)))
    }

    static func reply(encodedParameters: Data, continues: Bool) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(encodedParameters.count + 40)
        buffer.writeString(continues ? #"{"continues":true,"parameters":"# : #"{"parameters":"#)
        buffer.writeBytes(encodedParameters)
        buffer.writeString("}")
        buffer.writeInteger(UInt8(0))
        return buffer
    }

    static func error(_ error: VarlinkError) -> ByteBuffer {
        // A [String: String] always encodes.
        frame(try! encoder.encode(Reply(parameters: error.parameters, continues: nil, error: error.name)))
    }

    static func call(_ method: String, _ parameters: some Encodable, more: Bool, oneway: Bool) throws -> ByteBuffer {
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
