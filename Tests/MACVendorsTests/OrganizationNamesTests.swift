import Testing

@testable import MACVendors

@Suite struct OrganizationNamesTests {
    @Test("each name comes back by its number, whatever came before and after it")
    func namesRoundTrip() {
        let written = ["Cisco Systems, Inc", "", "Bäckerei Müller GmbH", "A", "Nintendo Co.,Ltd", "株式会社"]
        var names = OrganizationNames()
        let numbers = written.map { names.append($0) }
        #expect(numbers == Array(0..<Int32(written.count)))
        #expect(numbers.map { names[$0] } == written)
    }
}
