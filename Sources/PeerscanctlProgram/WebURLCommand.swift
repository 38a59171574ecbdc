import ArgumentParser
import Foundation
import PeerScanClient

/// `peerscanctl web-url`: the address of peerscan-web's page with its token, to open in a browser.
struct WebURLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "web-url",
        abstract: "Print the address of peerscan-web's page, with its token.",
        discussion: """
            Prints http://ADDRESS/#token=TOKEN, reading the token from peerscan-web's token file (readable by root \
            and the peerscan group). The page takes the token from the address's fragment, which the browser never \
            sends to a server, keeps it for the tab and removes it from the address bar. Anyone with the address may \
            change labels, merge, split and forget devices and switch scanning: do not share it.
            """
    )

    /// Where the unit's peerscan-web keeps its token (StateDirectory=peerscan-web).
    static let defaultTokenFile = "/var/lib/peerscan-web/token"

    @Option(
        help: ArgumentHelp("peerscan-web's token file.", valueName: "path"),
        completion: .file()
    )
    var tokenFile: String = defaultTokenFile

    @Option(help: ArgumentHelp("The page's host and port, as the browser reaches it.", valueName: "host:port"))
    var address: String = "127.0.0.1:8737"

    func run() throws {
        let token: String
        do {
            token = try Self.token(in: Data(contentsOf: URL(fileURLWithPath: tokenFile)))
        } catch let error as CocoaError where error.code == .fileReadNoPermission {
            try fail(
                "cannot read \(tokenFile): permission denied (run as root or as a member of the peerscan group)",
                77
            )
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            try fail("cannot read \(tokenFile): no such file (has peerscan-web started once? see --token-file)", 1)
        } catch is TokenFileError {
            try fail("\(tokenFile) holds no token", 1)
        } catch {
            try fail("cannot read \(tokenFile): \(error.localizedDescription)", 1)
        }
        print(Self.url(address: address, token: token))
    }

    /// The token in a token file's content: the content less one trailing newline.
    static func token(in data: Data) throws(TokenFileError) -> String {
        guard var text = String(data: data, encoding: .utf8) else { throw TokenFileError() }
        if text.hasSuffix("\n") { text.removeLast() }
        guard !text.isEmpty else { throw TokenFileError() }
        return text
    }

    /// The page's address with the token in its fragment.
    static func url(address: String, token: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return "http://\(address)/#token=\(token.addingPercentEncoding(withAllowedCharacters: allowed) ?? token)"
    }

    private func fail(_ message: String, _ status: Int32) throws -> Never {
        FileHandle.standardError.write(Data("peerscanctl: \(message)\n".utf8))
        throw ExitCode(status)
    }
}

/// A token file that holds no token.
struct TokenFileError: Error {}
