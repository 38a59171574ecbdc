import Glibc
internal import POSIXText

/// A failure talking to nl80211: what was being done, on which interface, and the kernel's `errno` (or libnl's
/// message when the failure was libnl's own).
public struct Nl80211Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure; new kinds may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case familyMissing, permissionDenied, overrun, interrupted, system
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The kernel has no nl80211 family (no cfg80211: no Wi-Fi stack).
        public static let familyMissing = Code(.familyMissing)
        /// The kernel refused for lack of privilege (`EPERM`, `EACCES`): triggering a scan needs CAP_NET_ADMIN.
        public static let permissionDenied = Code(.permissionDenied)
        /// The kernel dropped events (`ENOBUFS`): read everything again.
        public static let overrun = Code(.overrun)
        /// A dump changed while the kernel sent it (`NLM_F_DUMP_INTR`): its parts may not fit; dump again.
        public static let interrupted = Code(.interrupted)
        /// Any other failure; see ``Nl80211Error/errno`` and ``Nl80211Error/detail``.
        public static let system = Code(.system)

        public var description: String {
            switch value {
            case .familyMissing: "family missing"
            case .permissionDenied: "permission denied"
            case .overrun: "overrun"
            case .interrupted: "interrupted"
            case .system: "failed"
            }
        }
    }

    /// The kind of failure.
    public var code: Code
    /// What was being done, e.g. `trigger scan`, `dump scan results`, `resolve family`.
    public var operation: String
    /// The interface it was done on, if any.
    public var interface: String?
    /// The kernel's `errno`, when the kernel answered with an error (or a socket call failed).
    public var errno: Int32?
    /// The text of the failure (`strerror`, or libnl's `nl_geterror`).
    public var detail: String

    /// An error from the kernel's `errno`.
    public init(_ operation: String, interface: String? = nil, errno code: Int32) {
        switch code {
        case EPERM, EACCES: self.code = .permissionDenied
        case ENOBUFS: self.code = .overrun
        default: self.code = .system
        }
        self.operation = operation
        self.interface = interface
        self.errno = code
        self.detail = POSIXText.errorDescription(code)
    }

    /// An error libnl reported (a negative `NLE_*` code), without an `errno`.
    public init(_ operation: String, interface: String? = nil, code: Code, detail: String) {
        self.code = code
        self.operation = operation
        self.interface = interface
        self.errno = nil
        self.detail = detail
    }

    /// Whether the kernel was busy (`EBUSY`: a scan already runs on the interface).
    public var isBusy: Bool { errno == EBUSY }

    public var description: String {
        let on = interface.map { " on \($0)" } ?? ""
        let number = errno.map { " (errno \($0))" } ?? ""
        return "nl80211 \(operation)\(on): \(detail)\(number)"
    }
}
