import Logging
import MonitoringLog
import PeerScanCore
import PeerScanModel
import Varlink
import VarlinkServer

// The Wi-Fi evil-twin baseline's methods: ListKnownWiFiNetworks (read from the store), TrustWiFiNetwork and
// UntrustWiFiNetwork (a person's edit, through the scan service to the store's wireless table, which hands the change
// to the registry).

extension PeerScanInterface {
    /// ListKnownWiFiNetworks, TrustWiFiNetwork and UntrustWiFiNetwork.
    func handleWiFiTrust(_ call: VarlinkCall, context: VarlinkCallContext) async throws {
        let edit: WiFiTrustEdit
        switch call.methodName {
        case "TrustWiFiNetwork":
            let parameters = try call.parameters(as: PeerScanWire.TrustWiFiNetworkParameters.self)
            var security: WiFiSecurity?
            if let text = parameters.security {
                guard let known = WiFiSecurity(rawValue: text) else { throw VarlinkError.invalidParameter("security") }
                security = known
            }
            edit = .trust(ssid: parameters.ssid, security: security)
            try authorize("TrustWiFiNetwork", "changing the Wi-Fi baseline", context: context)
        case "UntrustWiFiNetwork":
            edit = .untrust(ssid: try call.parameters(as: PeerScanWire.UntrustWiFiNetworkParameters.self).ssid)
            try authorize("UntrustWiFiNetwork", "changing the Wi-Fi baseline", context: context)
        default:
            // Where this host has been (home, work), in range or not: not for every local user.
            try authorize("ListKnownWiFiNetworks", "reading the Wi-Fi baseline", context: context)
            let networks = await store.knownWiFiNetworks.map(PeerScanWire.KnownWiFiNetwork.init)
            try await context.reply(PeerScanWire.KnownWiFiNetworksReply(networks: networks))
            return
        }
        guard let outcome = await devices?.request({ .editWiFiTrust(edit, reply: $0) }) else {
            throw VarlinkError(PeerScanWire.ErrorReply.wifiNetworkNotFound(ssid: edit.ssid, reason: "not available"))
        }
        let networks: [KnownWiFiNetwork]
        switch outcome {
        case .success(let known): networks = known
        case .failure(let error):
            throw VarlinkError(PeerScanWire.ErrorReply.wifiNetworkNotFound(ssid: error.ssid, reason: "\(error)"))
        }
        switch edit {
        case .trust(let ssid, let security):
            context.logger.log(
                .clientTrustedWiFiNetwork,
                ["ssid": "\(ssid)", "security": "\(security?.rawValue ?? "")", "networks": "\(networks.count)"]
            )
            try await context.reply(
                PeerScanWire.KnownWiFiNetworksReply(networks: networks.map(PeerScanWire.KnownWiFiNetwork.init))
            )
        case .untrust(let ssid):
            context.logger.log(.clientUntrustedWiFiNetwork, ["ssid": "\(ssid)"])
            try await context.reply(PeerScanWire.UntrustWiFiNetworkReply())
        }
    }
}
