internal import CCurl
import Foundation
import POSIXText
import Synchronization

extension HTTPRequest {
    /// Sends the request and returns the receiver's answer. libcurl's easy interface blocks, so each request runs on a
    /// thread of its own (alerts are few; no connection is kept between requests). Redirects are not followed; the
    /// system's trust store checks TLS; proxies are taken from the environment, as curl(1) takes them.
    ///
    /// - Parameter limits: How long the request may take and how much of the body is kept.
    /// - Returns: The answer, whatever its status.
    /// - Throws: ``HTTPRequestError`` when no answer came; `CancellationError` when the task was cancelled (the
    ///   request is aborted at libcurl's next progress call: as data moves, and at least once a second).
    public func send(limits: HTTPLimits) async throws -> HTTPAnswer {
        let exchange = HTTPExchange(request: self, limits: limits)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let thread = Thread { continuation.resume(with: Result { try exchange.perform() }) }
                thread.name = "http-request"
                thread.start()
            }
        } onCancel: {
            exchange.cancel()
        }
    }
}

/// One request's libcurl handle and what its callbacks gather. Everything but the cancellation flag is touched on the
/// request's thread only.
private final class HTTPExchange: @unchecked Sendable {
    let request: HTTPRequest
    let limits: HTTPLimits
    private let cancelled = Atomic<Bool>(false)
    var reason = ""
    var headers: [HTTPHeader] = []
    var body: [UInt8] = []

    init(request: HTTPRequest, limits: HTTPLimits) {
        self.request = request
        self.limits = limits
    }

    func cancel() { cancelled.store(true, ordering: .relaxed) }
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    func perform() throws -> HTTPAnswer {
        if isCancelled { throw CancellationError() }
        let curl = try CurlLibrary.shared.get()
        guard let handle = curl.easyInit() else { throw curl.error(CURLE_FAILED_INIT, message: nil) }
        defer { curl.easyCleanup(handle) }
        var headerList: CurlLibrary.HeaderList?
        defer { curl.slistFreeAll(headerList) }
        for (name, value) in request.headers {
            guard let longer = curl.slistAppend(headerList, "\(name): \(value)") else {
                throw curl.error(CURLE_OUT_OF_MEMORY, message: nil)
            }
            headerList = longer
        }
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code = try errorText.withUnsafeMutableBufferPointer { errorBuffer in
            try configure(curl, handle, headerList: headerList, errorBuffer: errorBuffer.baseAddress)
            return curl.easyPerform(handle)
        }
        guard code == CURLE_OK else {
            if code == CURLE_ABORTED_BY_CALLBACK && isCancelled { throw CancellationError() }
            throw curl.error(code, message: POSIXText.string(fromBuffer: errorText))
        }
        var status = 0
        try curl.check(peerscan_curl_response_code(curl.getinfo, handle, &status))
        return HTTPAnswer(status: status, reason: reason, headers: headers, bodyStart: body)
    }

    /// Sets every option of the request (libcurl copies the strings it is given).
    private func configure(
        _ curl: CurlLibrary,
        _ handle: CurlLibrary.Handle,
        headerList: CurlLibrary.HeaderList?,
        errorBuffer: UnsafeMutablePointer<CChar>?
    ) throws {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let set = curl.setopt
        try curl.check(peerscan_curl_set_pointer(set, handle, CURLOPT_ERRORBUFFER, errorBuffer))
        try curl.check(peerscan_curl_set_pointer(set, handle, CURLOPT_URL, request.url))
        try curl.check(peerscan_curl_set_pointer(set, handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        try curl.check(peerscan_curl_set_pointer(set, handle, CURLOPT_CUSTOMREQUEST, request.method))
        try curl.check(peerscan_curl_set_pointer(set, handle, CURLOPT_HTTPHEADER, headerList))
        if !request.body.isEmpty {
            try curl.check(
                peerscan_curl_set_size(set, handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
            )
            try request.body.withUnsafeBytes {
                try curl.check(peerscan_curl_set_pointer(set, handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress))
            }
        }
        try curl.check(peerscan_curl_set_long(set, handle, CURLOPT_NOSIGNAL, 1))
        try curl.check(peerscan_curl_set_long(set, handle, CURLOPT_CONNECTTIMEOUT_MS, limits.connect.milliseconds))
        try curl.check(peerscan_curl_set_long(set, handle, CURLOPT_TIMEOUT_MS, limits.whole.milliseconds))
        // Idle: less than a byte a second for that many seconds.
        try curl.check(peerscan_curl_set_long(set, handle, CURLOPT_LOW_SPEED_LIMIT, 1))
        try curl.check(
            peerscan_curl_set_long(set, handle, CURLOPT_LOW_SPEED_TIME, max(1, limits.idle.milliseconds / 1000))
        )
        try curl.check(peerscan_curl_set_data_function(set, handle, CURLOPT_WRITEFUNCTION, receiveBody))
        try curl.check(peerscan_curl_set_pointer(set, handle, CURLOPT_WRITEDATA, context))
        try curl.check(peerscan_curl_set_data_function(set, handle, CURLOPT_HEADERFUNCTION, receiveHeader))
        try curl.check(peerscan_curl_set_pointer(set, handle, CURLOPT_HEADERDATA, context))
        try curl.check(peerscan_curl_set_long(set, handle, CURLOPT_NOPROGRESS, 0))
        try curl.check(peerscan_curl_set_progress_function(set, handle, abortWhenCancelled))
        try curl.check(peerscan_curl_set_pointer(set, handle, CURLOPT_XFERINFODATA, context))
    }

    /// One header line of the answer: a status line starts a new answer (after a `100 Continue`), a field is kept.
    func receive(headerLine: String) {
        let line = headerLine.trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
            reason = parts.count == 3 ? String(parts[2]) : ""
            headers = []
        } else if headers.count < HTTPAnswer.headersKept, let colon = line.firstIndex(of: ":") {
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.append(HTTPHeader(name: String(line[..<colon]), value: value))
        }
    }
}

private func exchangeOf(_ context: UnsafeMutableRawPointer?) -> HTTPExchange {
    Unmanaged<HTTPExchange>.fromOpaque(context!).takeUnretainedValue()
}

private let receiveBody: peerscan_curl_data_function = { data, size, count, context in
    let exchange = exchangeOf(context)
    let length = size * count
    let kept = min(length, max(0, exchange.limits.bodyKept - exchange.body.count))
    if kept > 0, let data {
        data.withMemoryRebound(to: UInt8.self, capacity: kept) {
            exchange.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: kept))
        }
    }
    return length  // all of it taken: the rest is read and dropped
}

private let receiveHeader: peerscan_curl_data_function = { data, size, count, context in
    let length = size * count
    if let data {
        let bytes = UnsafeRawBufferPointer(start: data, count: length)
        exchangeOf(context).receive(headerLine: String(decoding: bytes, as: UTF8.self))
    }
    return length
}

private let abortWhenCancelled: peerscan_curl_progress_function = { context, _, _, _, _ in
    exchangeOf(context).isCancelled ? 1 : 0
}

extension Duration {
    /// Whole milliseconds, as libcurl's options take them.
    fileprivate var milliseconds: Int {
        Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000)
    }
}
