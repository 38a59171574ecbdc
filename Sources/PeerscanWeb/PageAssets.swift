/// The page's files, compiled into the binary from `Sources/PeerscanWeb/Page/` (`.embedInCode`), by name.
///
/// SwiftPM makes one static property per file and no list of them: ``files`` is that list, by hand.
/// `PageAssetsTests` fails when a file of the folder is missing here, so a new file cannot be forgotten.
public enum PageAssets {
    /// A file and its media type.
    public struct Asset: Sendable {
        /// The bytes.
        public var bytes: [UInt8]
        /// The `Content-Type`.
        public var contentType: String
    }

    /// Every file of the folder, by name.
    public static let files: [String: [UInt8]] = [
        "alerts.js": PackageResources.alerts_js,
        "api.js": PackageResources.api_js,
        "app.css": PackageResources.app_css,
        "app.js": PackageResources.app_js,
        "applier.js": PackageResources.applier_js,
        "bluetooth.js": PackageResources.bluetooth_js,
        "device.js": PackageResources.device_js,
        "devices.js": PackageResources.devices_js,
        "edits.js": PackageResources.edits_js,
        "index.html": PackageResources.index_html,
        "list.js": PackageResources.list_js,
        "router.js": PackageResources.router_js,
        "sse.js": PackageResources.sse_js,
        "stream.js": PackageResources.stream_js,
        "text.js": PackageResources.text_js,
        "timeline.js": PackageResources.timeline_js,
        "wifi.js": PackageResources.wifi_js,
        "windowed.js": PackageResources.windowed_js,
    ]

    /// The file called `name`, or `nil`.
    public static func asset(named name: String) -> Asset? {
        files[name].map { Asset(bytes: $0, contentType: contentType(ofName: name)) }
    }

    /// The page itself.
    public static var index: Asset { asset(named: "index.html")! }

    /// The media type of a file name's extension; `application/octet-stream` for one not listed.
    public static func contentType(ofName name: String) -> String {
        switch name.split(separator: ".").last.map({ $0.lowercased() }) ?? "" {
        case "html": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "json": "application/json"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        case "woff2": "font/woff2"
        case "txt": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
