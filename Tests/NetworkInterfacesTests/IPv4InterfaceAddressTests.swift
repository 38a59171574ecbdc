import NetworkInterfaces
import Testing

private func address(_ text: String) -> UInt32 {
    text.split(separator: ".").reduce(0) { $0 << 8 | UInt32($1)! }
}

@Suite("Which addresses a sweep covers")
struct SweepAddressTests {
    @Test func aSlash24IsEveryHostButOurOwn() {
        let subnet = IPv4InterfaceAddress(interface: "lan0", address: address("10.0.0.1"), prefixLength: 24)
        let addresses = subnet.sweepAddresses()
        #expect(addresses.count == 253)
        #expect(addresses.first == address("10.0.0.2") && addresses.last == address("10.0.0.254"))
        #expect(!addresses.contains(address("10.0.0.0")) && !addresses.contains(address("10.0.0.255")))
    }

    @Test func aSlash22IsSweptWhole() {
        let subnet = IPv4InterfaceAddress(interface: "lan0", address: address("10.0.5.9"), prefixLength: 22)
        let addresses = subnet.sweepAddresses()
        #expect(addresses.count == 1021)  // 1,024 less network, broadcast and our own
        #expect(addresses.first == address("10.0.4.1") && addresses.last == address("10.0.7.254"))
    }

    @Test func aSlash16IsSweptOverTheSlash22AroundOurAddress() {
        let subnet = IPv4InterfaceAddress(interface: "lan0", address: address("172.16.130.7"), prefixLength: 16)
        let addresses = subnet.sweepAddresses()
        #expect(addresses.count == 1023)
        #expect(addresses.first == address("172.16.128.0") && addresses.last == address("172.16.131.255"))
    }

    @Test func pointToPointAndSingleAddressSubnets() {
        #expect(
            IPv4InterfaceAddress(interface: "p", address: address("10.0.0.0"), prefixLength: 31).sweepAddresses()
                == [address("10.0.0.1")]
        )
        #expect(
            IPv4InterfaceAddress(interface: "p", address: address("10.0.0.1"), prefixLength: 32).sweepAddresses()
                .isEmpty
        )
    }

    @Test func dottedQuads() {
        let subnet = IPv4InterfaceAddress(interface: "lan0", address: address("192.168.1.254"), prefixLength: 24)
        #expect(subnet.description == "192.168.1.254/24 on lan0")
    }

    @Test("a prefix length outside 0…32 is clamped, never a trap", arguments: [-5, 0, 33, Int.max, Int.min])
    func prefixLengthClamped(prefixLength: Int) {
        let subnet = IPv4InterfaceAddress(interface: "p", address: address("10.0.0.1"), prefixLength: prefixLength)
        #expect((0...32).contains(subnet.prefixLength))
        var widened = subnet
        widened.prefixLength = prefixLength  // set past the initializer: the sweep clamps too
        #expect(widened.sweepAddresses(limit: 4).count <= 4)
    }
}
