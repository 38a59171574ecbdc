/// A wireless interface, as nl80211's `NL80211_CMD_GET_INTERFACE` reports it.
public struct Nl80211Interface: Hashable, Sendable {
    /// Its interface index.
    public var index: Int32
    /// Its name, e.g. `wlan0`.
    public var name: String
    /// Its mode (`NL80211_ATTR_IFTYPE`).
    public var type: InterfaceType
    /// The SSID of the network it is connected to (or serves, as an access point), as the kernel holds it; `nil`
    /// when not connected (or on a kernel that does not say).
    public var ssid: [UInt8]?
    /// The operating channel's centre frequency in MHz (`NL80211_ATTR_WIPHY_FREQ`), when it has one.
    public var frequency: Int?
    /// Whether it is up (`IFF_UP`); `false` too if the flags could not be read (the interface just went).
    public var isUp: Bool

    /// Creates an interface.
    public init(index: Int32, name: String, type: InterfaceType, ssid: [UInt8]?, frequency: Int?, isUp: Bool) {
        self.index = index
        self.name = name
        self.type = type
        self.ssid = ssid
        self.frequency = frequency
        self.isUp = isUp
    }

    /// An interface mode (`enum nl80211_iftype`).
    public struct InterfaceType: Hashable, Sendable, CustomStringConvertible {
        /// The kernel's value.
        public var rawValue: UInt32
        /// Creates a mode from the kernel's value.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// A station (a client of access points): the interfaces that scan for networks.
        public static let station = InterfaceType(rawValue: 2)  // NL80211_IFTYPE_STATION
        /// An access point.
        public static let accessPoint = InterfaceType(rawValue: 3)  // NL80211_IFTYPE_AP
        /// A monitor interface.
        public static let monitor = InterfaceType(rawValue: 6)  // NL80211_IFTYPE_MONITOR
        /// A Wi-Fi Direct client.
        public static let p2pClient = InterfaceType(rawValue: 8)  // NL80211_IFTYPE_P2P_CLIENT

        public var description: String {
            switch self {
            case .station: "station"
            case .accessPoint: "ap"
            case .monitor: "monitor"
            case .p2pClient: "p2p-client"
            default: "type \(rawValue)"
            }
        }
    }
}

/// One BSS (an access point heard) from the kernel's scan results (`NL80211_CMD_GET_SCAN`, `NL80211_ATTR_BSS`).
public struct Nl80211BSS: Hashable, Sendable {
    /// Its BSSID: 6 bytes.
    public var bssid: [UInt8]
    /// The channel's centre frequency in MHz.
    public var frequency: Int
    /// The received signal in mBm (dBm × 100), if the driver reports it in dBm.
    public var signalMBM: Int?
    /// How long ago it was last heard, in milliseconds.
    public var seenMillisecondsAgo: Int?
    /// The capability field of its beacon or probe response (bit 4: privacy).
    public var capability: UInt16?
    /// Whether the interface is authenticated or associated with it.
    public var status: Status?
    /// The information elements of its last probe response or beacon (`NL80211_BSS_INFORMATION_ELEMENTS`).
    public var informationElements: [UInt8]
    /// The information elements of its last beacon (`NL80211_BSS_BEACON_IES`), if the kernel keeps them apart.
    public var beaconInformationElements: [UInt8]?

    /// Creates a BSS.
    public init(
        bssid: [UInt8],
        frequency: Int,
        signalMBM: Int?,
        seenMillisecondsAgo: Int?,
        capability: UInt16?,
        status: Status?,
        informationElements: [UInt8],
        beaconInformationElements: [UInt8]?
    ) {
        self.bssid = bssid
        self.frequency = frequency
        self.signalMBM = signalMBM
        self.seenMillisecondsAgo = seenMillisecondsAgo
        self.capability = capability
        self.status = status
        self.informationElements = informationElements
        self.beaconInformationElements = beaconInformationElements
    }

    /// `enum nl80211_bss_status`.
    public enum Status: UInt32, Hashable, Sendable {
        case authenticated = 0
        case associated = 1
        case ibssJoined = 2
    }
}

/// What nl80211 (and rtnetlink, for links going up and down) announced.
public enum Nl80211Event: Hashable, Sendable {
    /// The monitor joined its multicast groups: what happens from now on is reported (dump now).
    case subscribed
    /// A scan finished on the interface; its results are in the kernel's cache (`NL80211_CMD_NEW_SCAN_RESULTS`).
    case scanFinished(interfaceIndex: Int32)
    /// A scan was aborted on the interface (`NL80211_CMD_SCAN_ABORTED`).
    case scanAborted(interfaceIndex: Int32)
    /// The interface connected (`NL80211_CMD_CONNECT`) or disconnected (`NL80211_CMD_DISCONNECT`).
    case connectionChanged(interfaceIndex: Int32)
    /// A wireless interface appeared or went (`NL80211_CMD_NEW_INTERFACE`, `NL80211_CMD_DEL_INTERFACE`).
    case interfacesChanged
    /// A network interface (wireless or not) changed its link state: up, down, renamed (`RTM_NEWLINK`, `RTM_DELLINK`).
    case linkChanged(interfaceIndex: Int32)
    /// The kernel dropped events (`ENOBUFS`): read everything again.
    case overrun
}
