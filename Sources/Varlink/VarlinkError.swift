/// A Varlink error reply: a qualified error name and its parameters.
///
/// A method handler throws one to answer a call with an error; a client receives one for an error reply. The
/// standard errors of `org.varlink.service` have factories.
public struct VarlinkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The qualified error name, e.g. `org.varlink.service.InvalidParameter`.
    public var name: String
    /// The error's parameters.
    public var parameters: [String: String]

    /// Creates an error.
    public init(_ name: String, parameters: [String: String] = [:]) {
        self.name = name
        self.parameters = parameters
    }

    /// No interface of this name is served.
    public static func interfaceNotFound(_ interface: String) -> VarlinkError {
        VarlinkError("org.varlink.service.InterfaceNotFound", parameters: ["interface": interface])
    }

    /// The interface has no such method.
    public static func methodNotFound(_ method: String) -> VarlinkError {
        VarlinkError("org.varlink.service.MethodNotFound", parameters: ["method": method])
    }

    /// The method is defined but not implemented.
    public static func methodNotImplemented(_ method: String) -> VarlinkError {
        VarlinkError("org.varlink.service.MethodNotImplemented", parameters: ["method": method])
    }

    /// A parameter is missing or has the wrong type or value.
    public static func invalidParameter(_ parameter: String) -> VarlinkError {
        VarlinkError("org.varlink.service.InvalidParameter", parameters: ["parameter": parameter])
    }

    /// The caller may not call this method.
    public static let permissionDenied = VarlinkError("org.varlink.service.PermissionDenied")

    /// The method must be called with `more: true`.
    public static let expectedMore = VarlinkError("org.varlink.service.ExpectedMore")

    public var description: String {
        let details = parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return details.isEmpty ? name : "\(name) (\(details))"
    }
}

/// A violation of the Varlink wire protocol. The connection it happened on is closed.
public enum VarlinkProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A message grew beyond the maximum size without its NUL terminator.
    case messageTooLarge(limit: Int)
    /// A message is not valid JSON or lacks a required field.
    case invalidMessage(String)
    /// The peer closed the connection before the reply ended.
    case connectionClosed

    public var description: String {
        switch self {
        case .messageTooLarge(let limit): "message larger than \(limit) bytes"
        case .invalidMessage(let reason): "invalid message: \(reason)"
        case .connectionClosed: "connection closed"
        }
    }
}
