extension PeerScanWire {
    /// The interface definition, served by `org.varlink.service.GetInterfaceDescription`: the text of
    /// `io.peerscan.varlink` next to this file, embedded in the binary when it is built (so there is one copy of it,
    /// and an installed binary needs no resource file beside it).
    public static let definition = String(decoding: PackageResources.io_peerscan_varlink, as: UTF8.self)
}
