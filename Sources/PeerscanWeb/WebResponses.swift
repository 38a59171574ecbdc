import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore
import Varlink

/// The responses peerscan-web makes: JSON, errors, a page file; each with the security headers.
enum WebResponses {
    /// A JSON body as is, for the API.
    static func json(_ body: Data, status: HTTPResponse.Status = .ok) -> Response {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        SecurityHeaders.addAPI(to: &fields)
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// An error: `{"error": NAME, "parameters": {...}}`, the shape of a Varlink error.
    static func error(_ status: HTTPResponse.Status, name: String, parameters: [String: String] = [:]) -> Response {
        struct Body: Encodable {
            var error: String
            var parameters: [String: String]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(Body(error: name, parameters: parameters))) ?? Data("{}".utf8)
        var response = json(body, status: status)
        if status == .unauthorized { response.headers[.wwwAuthenticate] = "Bearer" }
        return response
    }

    /// The reply to a Varlink error: its name and parameters, with a 4xx status that says what kind it is.
    static func varlinkError(_ error: VarlinkError) -> Response {
        Self.error(status(forVarlinkError: error.name), name: error.name, parameters: error.parameters)
    }

    /// The HTTP status of a Varlink error: 404 for what is not found, 403 for a refusal, 409 for a conflict with the
    /// state (merge, split), 400 for the rest (a parameter the method refused).
    static func status(forVarlinkError name: String) -> HTTPResponse.Status {
        let last = name.split(separator: ".").last.map(String.init) ?? name
        switch last {
        case "DeviceNotFound", "WiFiNetworkNotFound", "MethodNotFound", "InterfaceNotFound": return .notFound
        case "PermissionDenied": return .forbidden
        case "CannotMerge", "CannotSplit": return .conflict
        default: return .badRequest
        }
    }

    /// A page file.
    static func asset(_ asset: PageAssets.Asset) -> Response {
        var fields = HTTPFields()
        fields[.contentType] = asset.contentType
        fields[.cacheControl] = "no-cache"
        SecurityHeaders.addCommon(to: &fields)
        return Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    /// A body-less answer that is no API reply (421, 404 for a page, 405), with the security headers.
    static func plain(_ status: HTTPResponse.Status, extra: HTTPFields = [:]) -> Response {
        var fields = extra
        fields[.contentType] = "text/plain; charset=utf-8"
        SecurityHeaders.addAPI(to: &fields)
        let text = "\(status.code) \(status.reasonPhrase)\n"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
