import DaemonSupport
import Glibc
import TestSupport
import Testing

/// `sd_listen_fds` without libsystemd. The environment is passed in, never the process's own: tests run in
/// parallel, and `setenv` is not thread-safe. The one test that needs the real environment runs in a child process.
@Suite("SocketActivation")
struct SocketActivationTests {
    private func descriptors(_ environment: [String: String], processID: Int32 = 4242) -> [Int32] {
        SocketActivation.listeningDescriptors(
            environment: { environment[$0] },
            processID: processID,
            unsetEnvironment: false
        )
    }

    @Test("LISTEN_FDS for this process: the descriptors from 3 on")
    func passed() {
        #expect(descriptors(["LISTEN_PID": "4242", "LISTEN_FDS": "2"]) == [3, 4])
        #expect(descriptors(["LISTEN_PID": "4242", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "varlink"]) == [3])
        #expect(SocketActivation.firstDescriptor == 3)
    }

    @Test("LISTEN_PID naming another process: none (they were meant for our parent)")
    func otherProcess() {
        #expect(descriptors(["LISTEN_PID": "4243", "LISTEN_FDS": "2"]) == [])
    }

    @Test(
        "missing or garbage values: none",
        arguments: [
            [:],
            ["LISTEN_FDS": "2"],
            ["LISTEN_PID": "4242"],
            ["LISTEN_PID": "4242", "LISTEN_FDS": "0"],
            ["LISTEN_PID": "4242", "LISTEN_FDS": "-1"],
            ["LISTEN_PID": "4242", "LISTEN_FDS": "two"],
            ["LISTEN_PID": "4242", "LISTEN_FDS": ""],
            ["LISTEN_PID": "4242", "LISTEN_FDS": " 2"],
            ["LISTEN_PID": "4242", "LISTEN_FDS": "99999999999"],
            ["LISTEN_PID": "", "LISTEN_FDS": "2"],
            ["LISTEN_PID": "4242x", "LISTEN_FDS": "2"],
            ["LISTEN_PID": "-4242", "LISTEN_FDS": "2"],
        ] as [[String: String]]
    )
    func garbage(environment: [String: String]) {
        #expect(descriptors(environment) == [])
    }

    @Test("a LISTEN_FDS so large that 3 + count overflows: none, not a crash")
    func overflowingCount() async {
        await #expect(processExitsWith: .success) {
            let count = SocketActivation.listeningDescriptors(
                environment: { ["LISTEN_PID": "4242", "LISTEN_FDS": "2147483647"][$0] },
                processID: 4242,
                unsetEnvironment: false
            ).count
            exit(count == 0 ? EXIT_SUCCESS : EXIT_FAILURE)
        }
    }

    @Test("the variables are removed from the environment, so that children do not see them")
    func unsetsEnvironment() async {
        // In a child process: setenv is not thread-safe, and other tests run in this one.
        await #expect(processExitsWith: .success) {
            setenv("LISTEN_PID", "\(getpid() + 1)", 1)
            setenv("LISTEN_FDS", "1", 1)
            setenv("LISTEN_FDNAMES", "varlink", 1)
            let descriptors = SocketActivation.listeningDescriptors()
            let names: [String] = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]
            let left = names.filter { getenv($0) != nil }
            exit(descriptors.isEmpty && left.isEmpty ? EXIT_SUCCESS : EXIT_FAILURE)
        }
    }

    @Test("isListeningUnixStream: a listening Unix stream socket")
    func listeningUnixStream() async throws {
        try await withTemporaryDirectory { directory in
            let socket = try BoundSocket(type: SOCK_STREAM, path: directory + "/listening")
            try socket.listen()
            #expect(SocketActivation.isListeningUnixStream(socket.descriptor))
        }
        let abstract = try BoundSocket(type: SOCK_STREAM, path: "@" + uniqueName("peerscan-activation-test"))
        try abstract.listen()
        #expect(SocketActivation.isListeningUnixStream(abstract.descriptor))
    }

    @Test("isListeningUnixStream: not a datagram socket, a stream socket that does not listen, a pipe, a file")
    func notListeningUnixStream() async throws {
        try await withTemporaryDirectory { directory in
            let datagram = try BoundSocket(type: SOCK_DGRAM, path: directory + "/datagram")
            #expect(!SocketActivation.isListeningUnixStream(datagram.descriptor))

            let bound = try BoundSocket(type: SOCK_STREAM, path: directory + "/bound")
            #expect(!SocketActivation.isListeningUnixStream(bound.descriptor))

            let seqpacket = try BoundSocket(type: SOCK_SEQPACKET, path: directory + "/seqpacket")
            try seqpacket.listen()
            #expect(!SocketActivation.isListeningUnixStream(seqpacket.descriptor))

            let pipe = try TestPipe()
            #expect(!SocketActivation.isListeningUnixStream(pipe.readEnd))
            #expect(!SocketActivation.isListeningUnixStream(pipe.writeEnd))

            let file = open(directory + "/file", O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
            defer { close(file) }
            #expect(!SocketActivation.isListeningUnixStream(file))
        }
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        defer { for descriptor in pair { close(descriptor) } }
        #expect(!SocketActivation.isListeningUnixStream(pair[0]), "a connected stream socket")
        #expect(!SocketActivation.isListeningUnixStream(-1))
    }
}
