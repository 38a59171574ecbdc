internal import CCurl
import Foundation

/// libcurl's functions, from libcurl.so.4 loaded (dlopen) and initialised when the first request is sent. The
/// package's one executable is four programs (docs/packaging.md, "Size") and only peerscan-alerts sends HTTP: linked,
/// libcurl and the 26 libraries it needs would be mapped and relocated at every start of every program (5 ms
/// of each `peerscanctl` call).
struct CurlLibrary: @unchecked Sendable {  // function pointers, never changed once loaded
    typealias Handle = UnsafeMutableRawPointer
    typealias HeaderList = UnsafeMutablePointer<curl_slist>

    let easyInit: @convention(c) () -> Handle?
    let easyCleanup: @convention(c) (Handle?) -> Void
    let easyPerform: @convention(c) (Handle?) -> CURLcode
    let easyStrerror: @convention(c) (CURLcode) -> UnsafePointer<CChar>?
    let slistAppend: @convention(c) (HeaderList?, UnsafePointer<CChar>?) -> HeaderList?
    let slistFreeAll: @convention(c) (HeaderList?) -> Void
    /// curl_easy_setopt and curl_easy_getinfo, variadic: called through CCurl's typed functions.
    let setopt: UnsafeMutableRawPointer
    let getinfo: UnsafeMutableRawPointer

    /// The file Debian's libcurl4 installs (the OpenSSL flavour; the package depends on it).
    static let file = "libcurl.so.4"

    /// libcurl, loaded and initialised once per process.
    static let shared = Result { () throws(HTTPRequestError) in try CurlLibrary(file: file) }

    /// Loads `file` and initialises it (curl_global_init).
    ///
    /// - Throws: ``HTTPRequestError`` saying what could not be loaded, or the initialisation's error.
    init(file: String) throws(HTTPRequestError) {
        guard let library = dlopen(file, RTLD_NOW | RTLD_LOCAL) else {
            throw HTTPRequestError(code: Int(CURLE_FAILED_INIT.rawValue), message: Self.loadError(file))
        }
        func function<Function>(_ name: String, _: Function.Type) throws(HTTPRequestError) -> Function {
            guard let address = dlsym(library, name) else {
                throw HTTPRequestError(code: Int(CURLE_FAILED_INIT.rawValue), message: Self.loadError(file))
            }
            return unsafeBitCast(address, to: Function.self)
        }
        easyInit = try function("curl_easy_init", (@convention(c) () -> Handle?).self)
        easyCleanup = try function("curl_easy_cleanup", (@convention(c) (Handle?) -> Void).self)
        easyPerform = try function("curl_easy_perform", (@convention(c) (Handle?) -> CURLcode).self)
        easyStrerror = try function("curl_easy_strerror", (@convention(c) (CURLcode) -> UnsafePointer<CChar>?).self)
        slistAppend = try function(
            "curl_slist_append",
            (@convention(c) (HeaderList?, UnsafePointer<CChar>?) -> HeaderList?).self
        )
        slistFreeAll = try function("curl_slist_free_all", (@convention(c) (HeaderList?) -> Void).self)
        setopt = try function("curl_easy_setopt", UnsafeMutableRawPointer.self)
        getinfo = try function("curl_easy_getinfo", UnsafeMutableRawPointer.self)
        // Once per process, before any handle (thread-safe from curl 7.84).
        let code = peerscan_curl_global_init(try function("curl_global_init", UnsafeMutableRawPointer.self))
        guard code == CURLE_OK else { throw error(code, message: nil) }
    }

    /// Throws the error for `code` unless it is CURLE_OK.
    func check(_ code: CURLcode) throws(HTTPRequestError) {
        guard code == CURLE_OK else { throw error(code, message: nil) }
    }

    /// The error for `code`: libcurl's most specific message, else its text for the code.
    func error(_ code: CURLcode, message: String?) -> HTTPRequestError {
        let text = message.flatMap { $0.isEmpty ? nil : $0 } ?? easyStrerror(code).map { String(cString: $0) } ?? ""
        return HTTPRequestError(code: Int(code.rawValue), message: text)
    }

    private static func loadError(_ file: String) -> String {
        "\(file) cannot be loaded (\(dlerror().map { String(cString: $0) } ?? "no reason given")): install libcurl4"
    }
}
