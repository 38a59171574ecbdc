import Glibc

/// The sockets systemd passed to this process (socket activation, `sd_listen_fds(3)`), without libsystemd.
///
/// systemd sets `LISTEN_PID` to the pid it started and `LISTEN_FDS` to the number of descriptors passed from 3 on
/// (`SD_LISTEN_FDS_START`). The variables are only for the process they name: a child must not inherit them.
public enum SocketActivation {
    /// The first passed descriptor.
    public static let firstDescriptor: Int32 = 3

    /// The passed descriptors, or an empty array when none were passed to *this* process. Sets close-on-exec on
    /// them and, when `unsetEnvironment` is true, removes the variables so that children do not see them.
    public static func listeningDescriptors(
        environment: (String) -> String? = Environment.value,
        processID: Int32 = getpid(),
        unsetEnvironment: Bool = true
    ) -> [Int32] {
        defer {
            if unsetEnvironment {
                unsetenv("LISTEN_PID")
                unsetenv("LISTEN_FDS")
                unsetenv("LISTEN_FDNAMES")
            }
        }
        guard let pid = environment("LISTEN_PID").flatMap({ Int32($0) }), pid == processID,
            let count = environment("LISTEN_FDS").flatMap({ Int32($0) }), count > 0,
            count <= Int32.max - firstDescriptor
        else { return [] }
        let descriptors = Array(firstDescriptor..<firstDescriptor + count)
        for descriptor in descriptors where fcntl(descriptor, F_SETFD, FD_CLOEXEC) != 0 { return [] }
        return descriptors
    }

    /// Whether a descriptor is a listening Unix stream socket (what a `.socket` unit with `ListenStream=/path`
    /// passes).
    public static func isListeningUnixStream(_ descriptor: Int32) -> Bool {
        var type: Int32 = 0
        var listening: Int32 = 0
        var family = sockaddr_storage()
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_TYPE, &type, &length) == 0, type == Int32(SOCK_STREAM.rawValue)
        else { return false }
        length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening != 0 else {
            return false
        }
        var addressLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &family) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &addressLength) }
        }
        return named == 0 && family.ss_family == sa_family_t(AF_UNIX)
    }
}
