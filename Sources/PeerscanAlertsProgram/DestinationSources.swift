import AlertDelivery
import Foundation

/// The destinations given: `--notify` URLs, then each `--notify-file`'s, else systemd's credential `notify`.
struct DestinationSources {
    /// Why the destinations could not be had: which option, file or line, and why (never a URL: it may hold a
    /// secret).
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    var urls: [String]
    var files: [String]
    /// `$CREDENTIALS_DIRECTORY` (systemd's `LoadCredential=`), if set.
    var credentialsDirectory: String?

    /// The credential's name the unit loads (`LoadCredential=notify:/etc/peerscan/notify`).
    static let credentialName = "notify"

    /// Every destination, parsed and checked (names differ).
    ///
    /// - Throws: ``Problem`` naming where the bad URL was and what is wrong with it; or that there is none.
    func destinations() throws(Problem) -> [Destination] {
        var destinations: [Destination] = []
        for (index, url) in urls.enumerated() {
            do { destinations.append(try Destination(parsing: url)) } catch {
                throw Problem(description: "--notify #\(index + 1): \(error)")
            }
        }
        var paths = files
        if paths.isEmpty, let credentialsDirectory {
            let credential = credentialsDirectory + "/" + Self.credentialName
            if FileManager.default.fileExists(atPath: credential) { paths.append(credential) }
        }
        for path in paths {
            let text: String
            do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
                throw Problem(description: "\(path): cannot be read (\(error.localizedDescription))")
            }
            for line in NotifyList.lines(of: text) {
                do { destinations.append(try Destination(parsing: line.url)) } catch {
                    throw Problem(description: "\(path):\(line.number): \(error)")
                }
            }
        }
        guard !destinations.isEmpty else {
            throw Problem(description: "no destination: give --notify URL or --notify-file PATH (docs/alerts.md)")
        }
        do { try Destination.checkNamesDiffer(destinations) } catch { throw Problem(description: "\(error)") }
        return destinations
    }
}
