import ArgumentParser
import PeerScanModel

/// peerscanctl: the command-line client of peerscand.
struct Peerscanctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "peerscanctl",
        abstract: "Show and follow the devices peerscand finds on the local networks; switch scanning on and off.",
        discussion: """
            peerscanctl talks to peerscand over its Varlink socket (interface io.peerscan). "list" prints the \
            current snapshot: the configuration (scanning on or off, this host's mDNS name, the state of \
            avahi-daemon, the interfaces browsed), then one row per device with its name, host name, addresses and \
            service types. "watch" prints the snapshot, then one line per change as it happens, and survives \
            restarts of peerscand. "known" lists the devices the registry knows, present or not; "show" prints one \
            device's history (first and last seen, every host name, MAC address and address). "scanning" switches \
            scanning on or off, or shows whether it is on; "set" names a device, notes something about it or marks \
            it important; "merge" makes several devices one, "split" gives a MAC address or host name a device of its \
            own again; "forget" makes peerscand forget a device; "wifi trust", "wifi untrust" and "wifi known" \
            edit and list the Wi-Fi networks the evil-twin checks compare with; "web-url" prints the address of \
            peerscan-web's page with its token.

            The socket is --socket if given, else $PEERSCAN_SOCKET if set and not empty, else \
            /run/peerscan/io.peerscan. Reading (list, watch, scanning status) is open to every local user by \
            default; switching scanning, labelling, merging, splitting and forgetting devices and trusting Wi-Fi \
            networks need root or membership of peerscand's control group (peerscan by default).

            Text published by devices on the network is printed with control characters escaped (\\e, \\n, \
            \\u{9b}), so that a device cannot change what a terminal shows. Colour is used only when standard \
            output is a terminal, NO_COLOR is unset or empty (https://no-color.org) and TERM is not "dumb".

            Exit status:
              0   success (watch: also when SIGINT or SIGTERM stopped it)
              1   any other failure
              64  usage error (EX_USAGE)
              69  peerscand is not running, or the connection failed (EX_UNAVAILABLE)
              76  protocol mismatch (EX_PROTOCOL)
              77  permission denied (EX_NOPERM)

            69 means nothing listens on the socket, or connecting or the connection failed. 76 means the server \
            does not speak io.peerscan as this client does: the interface or a method is missing, a reply cannot be \
            decoded, or changes do not apply to their snapshot. 77 is for connecting to the socket and for \
            the changes (scanning, set, merge, split, forget, wifi trust, wifi untrust).

            Environment:
              PEERSCAN_SOCKET  the socket, unless --socket is given
              NO_COLOR         no colour when set and not empty
              TERM             no colour when "dumb"

            Shell completions: peerscanctl --generate-completion-script bash|zsh|fish. See also peerscand(8), \
            varlinkctl(1).
            """,
        version: PeerScanVersion.current,
        subcommands: [
            ListCommand.self, WatchCommand.self, KnownCommand.self, ShowCommand.self, ScanningCommand.self,
            SetCommand.self, MergeCommand.self, SplitCommand.self, ForgetCommand.self, WiFiCommand.self,
            HistoryCommand.self, WebURLCommand.self, NotifyCommand.self,
        ]
    )
}
