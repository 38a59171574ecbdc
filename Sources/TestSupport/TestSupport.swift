import Foundation
import Glibc
@_exported import JSONValue  // the JSON value the tests compare messages with
import Logging
import NIOConcurrencyHelpers
internal import POSIXText

// What the test targets share. Not part of any product: only test targets and the benchmarks (their simulated time)
// depend on this module.

// MARK: - Failures

/// A failed system call, with its `errno`.
public struct POSIXFailure: Error, CustomStringConvertible {
    /// The call that failed, e.g. `socket`.
    public var call: String
    /// Its `errno`.
    public var errno: Int32

    /// Records a failure; `errno` defaults to the current one.
    public init(_ call: String, errno: Int32 = Glibc.errno) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call): \(POSIXText.errorDescription(errno))" }
}

// MARK: - Files

/// Runs `body` with the path of a new, empty directory under /tmp, and removes the directory afterwards. The path is
/// short (`/tmp/pst-XXXXXX`), so that Unix socket paths inside it fit `sun_path`.
@discardableResult
public func withTemporaryDirectory<Result>(_ body: (String) async throws -> Result) async throws -> Result {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    return try await body(directory)
}

private func makeTemporaryDirectory() throws -> String {
    var template = Array("/tmp/pst-XXXXXX".utf8CString)
    guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        throw POSIXFailure("mkdtemp")
    }
    return String(cString: created)
}

// MARK: - Logging

extension Logger {
    /// A logger that drops everything.
    public static let silent = Logger(label: "peerscan.tests") { _ in SwiftLogNoOpLogHandler() }
}

// MARK: - Waiting

/// Polls `condition` until it holds or `limit` has passed, and tells whether it held. For effects that happen on
/// another task with nothing to await; the limit only bounds how long a failing test takes.
public func eventually(
    within limit: Duration = .seconds(60),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now.advanced(by: limit)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return try await condition()
}

/// The result of `operation`, or `nil` if it did not finish within `limit` (it is then cancelled).
public func withTimeLimit<Result: Sendable>(
    _ limit: Duration,
    _ operation: @escaping @Sendable () async -> Result
) async -> Result? {
    await withTaskGroup(of: Result?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

// MARK: - Combinatorics

/// Every ordering of `elements`.
///
/// - Complexity: O(n · n!)
public func permutations<T>(of elements: [T]) -> [[T]] {
    guard let first = elements.first else { return [[]] }
    return permutations(of: Array(elements.dropFirst())).flatMap { rest in
        (0...rest.count).map { position in
            var permutation = rest
            permutation.insert(first, at: position)
            return permutation
        }
    }
}

// MARK: - Time

/// A clock that moves only when a test says so (``advance(by:)``), so that code waiting for a period can be tested
/// without waiting for it, and without racing a real timer.
public final class ManualClock: Clock, Sendable {
    /// An instant: the time advanced since the clock was made.
    public struct Instant: InstantProtocol {
        /// Time since the clock's start.
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Int: Sleeper] = [:]
        var nextSleeper = 0
    }

    private let state = NIOLockedValueBox(State())

    /// A clock at its start.
    public init() {}

    public var now: Instant { state.withLockedValue { $0.now } }

    public var minimumResolution: Duration { .zero }

    /// How many tasks sleep on this clock now.
    public var sleeperCount: Int { state.withLockedValue { $0.sleepers.count } }

    /// When the tasks sleeping on this clock wake, as offsets since its start, earliest first.
    public var wakeTimes: [Duration] { state.withLockedValue { $0.sleepers.values.map(\.deadline.offset).sorted() } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLockedValue { state in
            defer { state.nextSleeper += 1 }
            return state.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate: Swift.Result<Void, any Error>? = state.withLockedValue { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            state.withLockedValue { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(
                throwing: CancellationError()
            )
        }
    }

    /// Moves the clock forward to `offset` since its start (not at all if it is there already, or past it) and wakes
    /// every sleeper whose deadline is reached.
    public func advance(to offset: Duration) {
        advance(by: max(offset - now.offset, .zero))
    }

    /// Moves the clock forward and wakes every sleeper whose deadline is reached.
    public func advance(by duration: Duration) {
        let due = state.withLockedValue { state in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }
}

/// Every element of `stream` until it ends; `nil` if it has not ended within `limit`.
public func collect<Stream: AsyncSequence & Sendable>(
    _ stream: Stream,
    within limit: Duration = .seconds(10)
) async -> [Stream.Element]? where Stream.Element: Sendable, Stream.Failure == Never {
    await withTimeLimit(limit) {
        var elements: [Stream.Element] = []
        for await element in stream { elements.append(element) }
        return elements
    }
}
