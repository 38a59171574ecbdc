import Glibc
import Varlink

/// File system chores around a Unix socket path.
enum UnixSocketPath {
    /// Makes `path` ready to bind: creates its directory (mode 0755) if missing; if a socket file is already there,
    /// checks that no server answers on it (then it is stale and will be replaced).
    /// - Throws: ``VarlinkServerError`` if another server answers, or the path is something else than a socket.
    static func prepare(_ path: String) throws(VarlinkServerError) {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if !directory.isEmpty { makeDirectories(directory) }
        var status = stat()
        guard lstat(path, &status) == 0 else { return }  // nothing there
        guard (status.st_mode & S_IFMT) == S_IFSOCK else { throw .notASocket(path: path) }
        if isServed(path) { throw .alreadyServed(path: path) }
    }

    /// Whether a server listens on the socket at `path`. Never blocks: the connect is non-blocking, and a server
    /// whose backlog is full (it does not accept: `EAGAIN`) counts as one — it is alive, and the path is its.
    static func isServed(_ path: String) -> Bool {
        let descriptor = socket(
            AF_UNIX,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
            0
        )
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path.utf8)
            bytes[path.utf8.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0 || errno == EAGAIN || errno == EINPROGRESS
    }

    /// The longest path NIO binds or connects to (the portable limit, shorter than Linux's 107).
    static let maximumLength = 103

    /// A name next to `path` to bind first and rename over it: `path.PID.new`, or a shorter `.PID.new` in the same
    /// directory when that would be too long for a socket address.
    static func temporaryName(for path: String) -> String {
        let long = "\(path).\(getpid()).new"
        guard long.utf8.count > maximumLength else { return long }
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return "\(directory.isEmpty && !path.hasPrefix("/") ? "." : directory)/.\(getpid()).new"
    }

    /// Removes a socket file, if there is one (never anything else).
    static func remove(_ path: String) {
        var status = stat()
        if lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK { unlink(path) }
    }

    private static func makeDirectories(_ path: String) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            mkdir(prefix, 0o755)
        }
    }
}
