// Nl80211Error: the kernel's errno and libnl's codes mapped to kinds, the text, and the retry of interrupted dumps.

import Glibc
import Testing

@testable import Nl80211

@Suite struct Nl80211ErrorTests {
    @Test(arguments: [
        (EPERM, Nl80211Error.Code.permissionDenied),
        (EACCES, .permissionDenied),
        (ENOBUFS, .overrun),
        (EBUSY, .system),
        (ENODEV, .system),
    ])
    func anErrnoIsItsKind(_ errno: Int32, _ code: Nl80211Error.Code) {
        let error = Nl80211Error("trigger scan", interface: "wlan0", errno: errno)
        #expect(error.code == code)
        #expect(error.errno == errno)
        #expect(error.isBusy == (errno == EBUSY))
    }

    @Test func theTextNamesTheOperationTheInterfaceAndTheErrno() {
        let error = Nl80211Error("trigger scan", interface: "wlan0", errno: EBUSY)
        #expect(
            error.description == "nl80211 trigger scan on wlan0: \(String(cString: strerror(EBUSY))) (errno \(EBUSY))"
        )
        let library = Nl80211Error("resolve family", code: .familyMissing, detail: "Object not found")
        #expect(library.description == "nl80211 resolve family: Object not found")
        #expect(library.errno == nil && !library.isBusy)
    }

    /// libnl's `NLE_*` numbers (netlink/errno.h), spelled out.
    @Test(arguments: [
        (Int32(28), Nl80211Error.Code.permissionDenied),  // NLE_PERM
        (5, .overrun),  // NLE_NOMEM
        (12, .familyMissing),  // NLE_OBJ_NOTFOUND
        (4, .system),  // NLE_AGAIN
        (33, .system),  // NLE_DUMP_INTR
    ])
    func aLibnlCodeIsItsKind(_ code: Int32, _ kind: Nl80211Error.Code) {
        let error = GenericNetlinkSocket.libnlError("receive events", -code, interface: "wlan1")
        #expect(error.code == kind)
        #expect(error.errno == nil)
        #expect(error.interface == "wlan1")
        #expect(!error.detail.isEmpty)
    }

    @Test func anInterruptedDumpIsMadeAgainUpToThreeTimes() throws {
        var calls = 0
        let interrupted = Nl80211Error("dump", code: .interrupted, detail: "dump interrupted")
        let value = try Nl80211Client.retryingInterrupted { () throws -> Int in
            calls += 1
            if calls < 3 { throw interrupted }
            return 42
        }
        #expect(value == 42 && calls == 3)
        calls = 0
        #expect(throws: interrupted) {
            try Nl80211Client.retryingInterrupted { () throws -> Int in
                calls += 1
                throw interrupted
            }
        }
        #expect(calls == 3, "three tries, then the interruption is the caller's")
    }

    @Test func anotherFailureIsNotRetried() {
        var calls = 0
        let denied = Nl80211Error("dump", errno: EPERM)
        #expect(throws: denied) {
            try Nl80211Client.retryingInterrupted { () throws -> Int in
                calls += 1
                throw denied
            }
        }
        #expect(calls == 1)
    }
}
