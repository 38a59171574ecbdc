import Glibc
import NetworkInterfaces
import Testing

private let up = UInt32(IFF_UP)
private let multicast = UInt32(IFF_MULTICAST)
private let loopback = UInt32(IFF_LOOPBACK)
private let pointToPoint = UInt32(IFF_POINTOPOINT)

@Suite struct NetworkInterfacesTests {
    @Test func browsedByDefaultIsAvahisRule() {
        let interfaces = [
            NetworkInterface(name: "wlan0", flags: up | multicast, hasAddress: true),
            NetworkInterface(name: "eth0", flags: up | multicast, hasAddress: true),
            NetworkInterface(name: "lo", flags: up | loopback | multicast, hasAddress: true),
            NetworkInterface(name: "down0", flags: multicast, hasAddress: true),
            NetworkInterface(name: "nomc0", flags: up, hasAddress: true),
            NetworkInterface(name: "tun0", flags: up | multicast | pointToPoint, hasAddress: true),
            NetworkInterface(name: "bare0", flags: up | multicast, hasAddress: false),
        ]
        #expect(NetworkInterfaces.browsedByDefault(interfaces) == ["eth0", "wlan0"])
    }

    @Test func theKernelsListHasLoopbackOnceAndNeverBrowsesIt() throws {
        let interfaces = NetworkInterfaces.current()
        let names = interfaces.map(\.name)
        #expect(names == names.sorted() && Set(names).count == names.count, "one entry per name, sorted")
        let lo = try #require(interfaces.first { $0.name == "lo" })
        #expect(lo.flags & loopback != 0)
        #expect(!NetworkInterfaces.browsedByDefault(interfaces).contains("lo"))
    }
}
