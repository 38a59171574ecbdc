import Foundation
import Testing

@testable import PeerscanWeb

@Suite struct WebRouteTests {
    @Test(arguments: [
        ("GET", "/", WebRoute.page), ("GET", "/wifi", .page), ("HEAD", "/bluetooth", .page),
        ("GET", "/devices/3f2a-01", .page), ("GET", "/assets/app.js", .asset("app.js")),
        ("GET", "/api/snapshot", .snapshot), ("GET", "/api/events", .events), ("GET", "/api/known", .known),
        ("GET", "/api/devices/abc-1", .device("abc-1")), ("GET", "/api/alert-rules", .alertRules),
        ("POST", "/api/alert-rules", .methodNotAllowed(allowed: "GET, HEAD")),
        ("POST", "/api/SetAlertRule", .write(.setAlertRule)), ("POST", "/api/ListAlertRules", .notFound),
        ("POST", "/api/AckAlert", .notFound), ("POST", "/api/SetDeviceLabel", .write(.setDeviceLabel)),
        ("POST", "/api/SetScanning", .write(.setScanning)), ("POST", "/api/GetSnapshot", .notFound),
        ("POST", "/api/Monitor", .notFound), ("POST", "/api/TrustWiFiNetwork", .notFound),
        ("GET", "/assets/../Package.swift", .notFound), ("GET", "/assets/.hidden", .notFound),
        ("GET", "/assets/a/b.js", .notFound), ("GET", "/etc/passwd", .notFound), ("GET", "/devices/", .notFound),
        ("GET", "/api/SetScanning", .methodNotAllowed(allowed: "POST")),
        ("POST", "/api/snapshot", .methodNotAllowed(allowed: "GET, HEAD")),
        ("DELETE", "/", .methodNotAllowed(allowed: "GET, HEAD")), ("GET", "relative", .notFound),
    ])
    func routes(method: String, path: String, expected: WebRoute) {
        #expect(WebRoute(method: method, path: path) == expected)
    }

    @Test func exactlySevenWriteMethods() {
        #expect(
            Set(WriteMethod.allCases.map(\.rawValue)) == [
                "SetDeviceLabel", "MergeDevices", "SplitDevice", "ForgetDevice", "SetDeviceIRK", "SetScanning",
                "SetAlertRule",
            ]
        )
        #expect(WriteMethod.allCases.allSatisfy { WebRoute(method: "POST", path: "/api/\($0.rawValue)").isWrite })
    }

    /// The alert rules are a read (no token on loopback, as the other reads); setting one is a write.
    @Test func alertRulesAreReadAndSetAlertRuleIsAWrite() {
        let read = WebRoute(method: "GET", path: "/api/alert-rules")
        #expect(read.isAPI && !read.isWrite && read.access == .read)
        let write = WebRoute(method: "POST", path: "/api/SetAlertRule")
        #expect(write.isAPI && write.isWrite && write.access == .write)
    }
}

@Suite struct PageAssetsTests {
    /// Every file of `Sources/PeerscanWeb/Page/` is in the table, and nothing else is.
    @Test func everyPageFileIsServed() throws {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/PeerscanWeb/Page")
        let names = try FileManager.default.contentsOfDirectory(atPath: page.path).filter { !$0.hasPrefix(".") }
        #expect(Set(names) == Set(PageAssets.files.keys))
        for name in names {
            let bytes = try Data(contentsOf: page.appendingPathComponent(name))
            #expect(PageAssets.files[name] == Array(bytes), "\(name) differs from its embedded copy")
        }
    }

    /// `index.html` preloads every module but the entry (`app.js`), so the browser fetches them at once.
    @Test func thePagePreloadsEveryModule() throws {
        let html = String(decoding: try #require(PageAssets.files["index.html"]), as: UTF8.self)
        let modules = PageAssets.files.keys.filter { $0.hasSuffix(".js") && $0 != "app.js" }
        #expect(!modules.isEmpty)
        for name in modules {
            #expect(html.contains("<link rel=\"modulepreload\" href=\"/assets/\(name)\">"), "\(name) is not preloaded")
        }
    }

    @Test(arguments: [
        ("index.html", "text/html; charset=utf-8"), ("app.js", "text/javascript; charset=utf-8"),
        ("style.css", "text/css; charset=utf-8"), ("x.bin", "application/octet-stream"),
    ])
    func contentTypes(name: String, expected: String) {
        #expect(PageAssets.contentType(ofName: name) == expected)
    }
}
