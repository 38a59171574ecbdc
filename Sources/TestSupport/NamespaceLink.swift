import Foundation

/// A command failed.
public struct CommandFailure: Error, CustomStringConvertible {
    /// The command and what it wrote to standard error.
    public var text: String
    public var description: String { text }
}

/// Runs a command; fails the test with its error output if it fails.
@discardableResult
public func runCommand(_ arguments: String...) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let failure = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw CommandFailure(text: "\(arguments.joined(separator: " ")): \(failure)")
    }
    return text
}

/// Sends one UDP datagram from namespace `namespace` to `address` (link-local with `%interface`): the kernel resolves
/// the address first.
public func poke(_ namespace: String, _ address: String) throws {
    try runCommand(
        "ip",
        "netns",
        "exec",
        namespace,
        "python3",
        "-c",
        "import socket,sys; a=socket.getaddrinfo(sys.argv[1], 9, type=socket.SOCK_DGRAM)[0]; "
            + "socket.socket(a[0], a[1]).sendto(b'x', a[4])",
        address
    )
}

/// Two network namespaces joined by a veth pair — `near0` (10.9.0.1/24, fd09::1/64) in the first, `far0` (10.9.0.2/24,
/// fd09::2/64) in the second — made for one test and removed after it, also when it fails. Nothing touches the host's
/// own namespace.
public struct NamespaceLink: ~Copyable {
    /// The near namespace's name.
    public let near: String
    /// The far namespace's name.
    public let far: String
    /// The near namespace's file, for code that enters it.
    public var nearPath: String { "/run/netns/\(near)" }

    /// Creates the namespaces and the link.
    public init() throws {
        let tag = "psn-\(getpid())-\(UInt16.random(in: 0...UInt16.max))"
        near = "\(tag)-a"
        far = "\(tag)-b"
        try runCommand("ip", "netns", "add", near)
        do {
            try runCommand("ip", "netns", "add", far)
            for namespace in [near, far] {
                try runCommand(
                    "ip",
                    "netns",
                    "exec",
                    namespace,
                    "sysctl",
                    "-qw",
                    "net.ipv6.conf.all.accept_dad=0",
                    "net.ipv6.conf.default.accept_dad=0"
                )
            }
            try runCommand(
                "ip",
                "-n",
                near,
                "link",
                "add",
                "near0",
                "type",
                "veth",
                "peer",
                "name",
                "far0",
                "netns",
                far
            )
            try runCommand("ip", "-n", near, "addr", "add", "10.9.0.1/24", "dev", "near0")
            try runCommand("ip", "-n", near, "addr", "add", "fd09::1/64", "dev", "near0", "nodad")
            try runCommand("ip", "-n", far, "addr", "add", "10.9.0.2/24", "dev", "far0")
            try runCommand("ip", "-n", far, "addr", "add", "fd09::2/64", "dev", "far0", "nodad")
            try runCommand("ip", "-n", near, "link", "set", "near0", "up")
            try runCommand("ip", "-n", far, "link", "set", "far0", "up")
            // IPv6 comes up with the carrier (the kernel's link watch runs up to a second later): wait for both
            // link-local addresses.
            for _ in 0..<60 {
                let near6 = try runCommand("ip", "-n", near, "-6", "addr", "show", "dev", "near0", "scope", "link")
                let far6 = try runCommand("ip", "-n", far, "-6", "addr", "show", "dev", "far0", "scope", "link")
                if near6.contains("fe80") && far6.contains("fe80") && !(near6 + far6).contains("tentative") { break }
                usleep(50_000)
            }
        } catch {
            _ = try? runCommand("ip", "netns", "del", near)
            _ = try? runCommand("ip", "netns", "del", far)
            throw error
        }
    }

    deinit {
        _ = try? runCommand("ip", "netns", "del", near)
        _ = try? runCommand("ip", "netns", "del", far)
    }

    /// The MAC address of `far0`, the far end.
    public func farMAC() throws -> String {
        let text = try runCommand("ip", "-n", far, "-br", "link", "show", "far0")
        return String(text.split(whereSeparator: \.isWhitespace)[2]).lowercased()
    }
}
