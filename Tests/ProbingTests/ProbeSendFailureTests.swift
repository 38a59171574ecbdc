import Glibc
import Testing

@testable import Probing

@Suite("What a failed probe datagram means (the sockets have IP_RECVERR on)")
struct ProbeSendFailureTests {
    @Test func enobufsIsNoRoomAndNeverRetried() {
        for attempt in 0...ProbeSendFailure.retries {
            #expect(ProbeSendFailure(errno: ENOBUFS, attempt: attempt) == .noRoom)
        }
    }

    @Test(arguments: [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EHOSTDOWN, EPROTO, EACCES])
    func anEarlierDatagramsErrorIsRetriedThenRefused(code: Int32) {
        for attempt in 0..<ProbeSendFailure.retries {
            #expect(ProbeSendFailure(errno: code, attempt: attempt) == .earlierDatagram)
        }
        #expect(ProbeSendFailure(errno: code, attempt: ProbeSendFailure.retries) == .refused)
    }

    @Test(arguments: [EAGAIN, EPERM, EINVAL, EBADF])
    func anErrorOfThisDatagramIsRefusedAtOnce(code: Int32) {
        #expect(ProbeSendFailure(errno: code, attempt: 0) == .refused)
    }

    @Test func noRoomIsNotAnAsynchronousError() {
        #expect(!ProbeSendFailure.asynchronousErrors.contains(ENOBUFS))
        #expect(!ProbeSendFailure.asynchronousErrors.contains(EAGAIN))
    }
}
