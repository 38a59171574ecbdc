// `org.varlink.service`, which every server provides: GetInfo and GetInterfaceDescription.

import Varlink

extension VarlinkServer {
    func serviceInterface(_ context: VarlinkCallContext) async throws {
        switch context.call.methodName {
        case "GetInfo":
            struct Reply: Encodable {
                var vendor, product, version, url: String
                var interfaces: [String]
            }
            try await context.reply(
                Reply(
                    vendor: info.vendor,
                    product: info.product,
                    version: info.version,
                    url: info.url,
                    interfaces: ["org.varlink.service"] + interfaces.keys.sorted()
                )
            )
        case "GetInterfaceDescription":
            struct Parameters: Decodable { var interface: String }
            struct Reply: Encodable { var description: String }
            let name = try context.call.parameters(as: Parameters.self).interface
            if name == "org.varlink.service" {
                try await context.reply(Reply(description: Self.serviceDefinition))
            } else if let interface = interfaces[name] {
                try await context.reply(Reply(description: interface.definition))
            } else {
                throw VarlinkError.interfaceNotFound(name)
            }
        default:
            throw VarlinkError.methodNotFound(context.call.method)
        }
    }

    /// The definition of `org.varlink.service`, as the Varlink specification gives it.
    static let serviceDefinition = """
        # The Varlink Service Interface is provided by every varlink service. It
        # describes the service and the interfaces it implements.
        interface org.varlink.service

        # Get a list of all the interfaces a service provides and information
        # about the implementation.
        method GetInfo() -> (
          vendor: string,
          product: string,
          version: string,
          url: string,
          interfaces: []string
        )

        # Get the description of an interface that is implemented by this service.
        method GetInterfaceDescription(interface: string) -> (description: string)

        # The requested interface was not found.
        error InterfaceNotFound (interface: string)

        # The requested method was not found
        error MethodNotFound (method: string)

        # The interface defines the requested method, but the service does not
        # implement it.
        error MethodNotImplemented (method: string)

        # One of the passed parameters is invalid.
        error InvalidParameter (parameter: string)

        # Client is denied access
        error PermissionDenied ()

        # Method is expected to be called with 'more' set to true, but wasn't
        error ExpectedMore ()

        """
}
