/// The io.peerscan methods the page may call through `POST /api/METHOD`: exactly these seven.
public enum WriteMethod: String, CaseIterable, Hashable, Sendable {
    case setDeviceLabel = "SetDeviceLabel"
    case mergeDevices = "MergeDevices"
    case splitDevice = "SplitDevice"
    case forgetDevice = "ForgetDevice"
    case setDeviceIRK = "SetDeviceIRK"
    case setScanning = "SetScanning"
    case setAlertRule = "SetAlertRule"
}

/// What a request asks for, from its method and path alone.
public enum WebRoute: Hashable, Sendable {
    /// `index.html`: `/`, `/wifi`, `/bluetooth`, `/devices/ID` (the page routes by `location.pathname`).
    case page
    /// `/assets/NAME`: one of the page's files.
    case asset(String)
    /// `GET /api/snapshot`.
    case snapshot
    /// `GET /api/events`.
    case events
    /// `GET /api/devices/ID`.
    case device(String)
    /// `GET /api/known`.
    case known
    /// `GET /api/alert-rules`: ListAlertRules (docs/alerts.md).
    case alertRules
    /// `GET /metrics`: Prometheus's scrape (docs/metrics.md).
    case metrics
    /// `POST /api/METHOD` for a ``WriteMethod``.
    case write(WriteMethod)
    /// Nothing here: 404.
    case notFound
    /// A path that exists, with a method it does not take: 405.
    case methodNotAllowed(allowed: String)

    /// The route of a request.
    /// - Parameters:
    ///   - method: The HTTP method (`GET`, `HEAD`, `POST`, …).
    ///   - path: The path, without the query.
    public init(method: String, path: String) {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        let isRead = method == "GET" || method == "HEAD"
        guard path.hasPrefix("/") else {
            self = .notFound
            return
        }
        guard let (route, isWriteRoute) = Self.resource(segments) else {
            self = .notFound
            return
        }
        if isWriteRoute {
            self = method == "POST" ? route : .methodNotAllowed(allowed: "POST")
        } else {
            self = isRead ? route : .methodNotAllowed(allowed: "GET, HEAD")
        }
    }

    /// The resource that path segments name, and whether it is written; `nil` for none.
    private static func resource(_ segments: [String]) -> (WebRoute, Bool)? {
        switch (segments.count, segments.first ?? "") {
        case (1, ""), (1, "wifi"), (1, "bluetooth"): return (.page, false)
        case (1, "metrics"): return (.metrics, false)
        case (2, "devices"): return isIdentifier(segments[1]) ? (.page, false) : nil
        case (2, "assets"): return isAssetName(segments[1]) ? (.asset(segments[1]), false) : nil
        case (2, "api"):
            switch segments[1] {
            case "snapshot": return (.snapshot, false)
            case "events": return (.events, false)
            case "known": return (.known, false)
            case "alert-rules": return (.alertRules, false)
            default: return WriteMethod(rawValue: segments[1]).map { (.write($0), true) }
            }
        case (3, "api") where segments[1] == "devices":
            return isIdentifier(segments[2]) ? (.device(segments[2]), false) : nil
        default: return nil
        }
    }

    /// Whether the route changes something (and so always needs the token).
    public var isWrite: Bool {
        if case .write = self { return true }
        return false
    }

    /// What the route asks for, for ``AccessPolicy``.
    public var access: AccessPolicy.Access {
        switch self {
        case .page, .asset: .page
        case .write: .write
        default: .read
        }
    }

    /// Whether the route is the API's (its responses are never cached).
    public var isAPI: Bool {
        switch self {
        case .snapshot, .events, .device, .known, .alertRules, .write, .metrics: true
        case .page, .asset, .notFound, .methodNotAllowed: false
        }
    }

    /// A device id as the path may carry it: letters, digits, `-`, `_`, `.`, `:`; at most 128 characters.
    static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 128
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || "0123456789-_.:".unicodeScalars.contains($0))
            }
    }

    /// An asset's name: no path separator, no leading dot.
    static func isAssetName(_ text: String) -> Bool {
        isIdentifier(text) && !text.hasPrefix(".") && !text.contains(":")
    }
}
