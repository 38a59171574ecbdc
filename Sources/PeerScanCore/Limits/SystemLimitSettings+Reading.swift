import Foundation
import NetworkInterfaces

/// A system limit's setting could not be read.
public struct SystemLimitReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file read.
    public var path: String
    /// What went wrong.
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

extension SystemLimitSettings {
    /// Where avahi-daemon's configuration is.
    public static let avahiConfigurationPath = "/etc/avahi/avahi-daemon.conf"

    /// Where the kernel's `gc_thresh3` is for a protocol.
    public static func neighbourTableMaxPath(_ ipProtocol: IPProtocol) -> String {
        "/proc/sys/net/\(ipProtocol.rawValue)/neigh/default/gc_thresh3"
    }

    /// The `cache-entries-max` of avahi-daemon's configuration (its `[server]` section), or `nil` if it does not set
    /// it (avahi-daemon then uses 4,096).
    ///
    /// - Parameter text: The configuration file's text (INI: `[section]`, `key=value`, `#` and `;` comments).
    /// - Throws: ``SystemLimitReadError`` when the value is not a positive number.
    /// - Complexity: O(n) in the length of the text.
    public static func cacheEntriesMax(inAvahiConfiguration text: String) throws(SystemLimitReadError) -> Int? {
        var section = ""
        var value: Int?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                section = line.trimmingCharacters(in: CharacterSet(charactersIn: "[] \t"))
                continue
            }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard section == "server", parts.count == 2, parts[0] == "cache-entries-max" else { continue }
            guard let number = Int(parts[1]), number > 0 else {
                throw SystemLimitReadError(
                    path: avahiConfigurationPath,
                    reason: "cache-entries-max=\(parts[1]) is not a positive number"
                )
            }
            value = number
        }
        return value
    }

    /// Reads the settings: `cache-entries-max` from avahi-daemon's configuration (4,096 when the file or the key is
    /// absent: avahi-daemon's default) and `gc_thresh3` for IPv4 and IPv6 (a protocol whose file is absent — IPv6
    /// disabled, or a network namespace other than the host's, where the kernel does not show it — has its count not
    /// checked; ENOBUFS on probing still is: ``SystemLimitCheck``).
    ///
    /// - Parameters:
    ///   - avahiConfiguration: The path of avahi-daemon's configuration.
    ///   - neighbourTableMax: The path of `gc_thresh3` for each protocol.
    /// - Returns: The settings, and the problems met: a setting that could not be read keeps its default.
    public static func read(
        avahiConfiguration: String = avahiConfigurationPath,
        neighbourTableMax: (IPProtocol) -> String = neighbourTableMaxPath
    ) -> (settings: SystemLimitSettings, problems: [SystemLimitReadError]) {
        var settings = SystemLimitSettings(neighbourTableMax: [:])
        var problems: [SystemLimitReadError] = []
        do throws(SystemLimitReadError) {
            if let text = try contents(of: avahiConfiguration),
                let value = try cacheEntriesMax(inAvahiConfiguration: text)
            {
                settings.cacheEntriesMax = value
            }
        } catch {
            problems.append(error)
        }
        for ipProtocol in IPProtocol.allCases {
            let path = neighbourTableMax(ipProtocol)
            do throws(SystemLimitReadError) {
                guard let text = try contents(of: path) else { continue }
                let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
                guard let value = Int(trimmed), value > 0 else {
                    throw SystemLimitReadError(path: path, reason: "\"\(trimmed)\" is not a positive number")
                }
                settings.neighbourTableMax[ipProtocol] = value
            } catch {
                problems.append(error)
                settings.neighbourTableMax[ipProtocol] = defaultNeighbourTableMax
            }
        }
        return (settings, problems)
    }

    /// A file's text, or `nil` if it does not exist.
    private static func contents(of path: String) throws(SystemLimitReadError) -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw SystemLimitReadError(path: path, reason: "\(error.localizedDescription)")
        }
    }
}
