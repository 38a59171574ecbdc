// The D-Bus codec against sd-bus's own marshalling, without a bus: every value appended, sealed and read back equal;
// what sd-bus refuses comes back as a typed error; signatures and the accessors BlueZ's code reads values with.

import Testing

@testable import SystemBus

@Suite struct DBusMessageCodecTests {
    static let basics: [DBusValue] = [
        .byte(0), .byte(255), .boolean(true), .boolean(false), .int16(-32768), .uint16(65535), .int32(-1),
        .uint32(4_000_000_000), .int64(.min), .uint64(.max), .double(-0.5), .string(""), .string("grüße, \u{1F4E1}"),
        .objectPath("/org/bluez/hci0/dev_02_11_22_33_44_55"), .signature("a{sv}"),
    ]

    @Test(arguments: basics)
    func aBasicValueComesBackEqual(_ value: DBusValue) throws {
        #expect(try DBusMessageCodec.roundTrip([value]) == [value])
    }

    @Test func containersComeBackEqual() throws {
        let values: [DBusValue] = [
            .array(elementSignature: "y", [.byte(1), .byte(2), .byte(3)]),
            .array(elementSignature: "s", []),  // empty: its element signature is all it carries
            .array(elementSignature: "a{sv}", []),
            .structure([.string("le"), .boolean(true), .array(elementSignature: "q", [.uint16(0x180F)])]),
            .variant(.variant(.int32(7))),
            .stringVariantDictionary(["Transport": .string("le"), "DuplicateData": .boolean(true), "RSSI": .int16(-60)]
            ),
            .array(
                elementSignature: "{oa{sa{sv}}}",
                [
                    .dictionaryEntry(
                        .objectPath("/org/bluez/hci0"),
                        .array(
                            elementSignature: "{sa{sv}}",
                            [
                                .dictionaryEntry(
                                    .string("org.bluez.Adapter1"),
                                    .stringVariantDictionary(["Powered": .boolean(true)])
                                )
                            ]
                        )
                    )
                ]
            ),
        ]
        #expect(try DBusMessageCodec.roundTrip(values) == values)
    }

    @Test func noValuesIsAnEmptyMessage() throws {
        #expect(try DBusMessageCodec.roundTrip([]) == [])
    }

    @Test func anInvalidObjectPathIsATypedErrorNotATrap() {
        #expect {
            try DBusMessageCodec.roundTrip([.objectPath("not a path")])
        } throws: { error in
            (error as? DBusError)?.code == .message && (error as? DBusError)?.operation == "round trip"
        }
    }

    @Test func anArrayWhoseElementsAreNotItsSignatureIsRefused() {
        #expect(throws: DBusError.self) {
            try DBusMessageCodec.roundTrip([.array(elementSignature: "s", [.int32(1)])])
        }
    }

    @Test(arguments: [
        (DBusValue.byte(1), "y"), (.boolean(true), "b"), (.int16(1), "n"), (.uint16(1), "q"), (.int32(1), "i"),
        (.uint32(1), "u"), (.int64(1), "x"), (.uint64(1), "t"), (.double(1), "d"), (.string(""), "s"),
        (.objectPath("/"), "o"), (.signature(""), "g"), (.variant(.byte(1)), "v"),
        (.array(elementSignature: "{sv}", []), "a{sv}"),
        (.structure([.string(""), .array(elementSignature: "y", [])]), "(say)"),
        (.dictionaryEntry(.string(""), .variant(.byte(0))), "{sv}"),
    ])
    func aValueHasItsSignature(_ value: DBusValue, _ signature: String) {
        #expect(value.signature == signature)
    }

    @Test func accessorsLookThroughVariants() {
        let properties = DBusValue.stringVariantDictionary([
            "Name": .string("sensor"), "Paired": .boolean(false), "RSSI": .int16(-71),
            "ManufacturerData": .array(elementSignature: "y", [.byte(0x4C), .byte(0)]),
        ])
        let dictionary = properties.dictionary
        #expect(dictionary?["Name"]?.string == "sensor")
        #expect(dictionary?["Paired"]?.bool == false)
        #expect(dictionary?["RSSI"]?.integer == -71)
        #expect(dictionary?["ManufacturerData"]?.bytes == [0x4C, 0])
        #expect(
            properties.entries?.map(\.key) == [
                .string("ManufacturerData"), .string("Name"), .string("Paired"), .string("RSSI"),
            ]
        )
        #expect(DBusValue.uint64(.max).integer == nil, "too large for an Int")
        #expect(DBusValue.array(elementSignature: "v", [.variant(.byte(1))]).bytes == nil, "not bytes")
        #expect(DBusValue.int32(1).string == nil && DBusValue.string("x").bool == nil)
    }

    @Test func aDictionaryWithAnUnreadableKeyIsNone() {
        let value = DBusValue.array(elementSignature: "{iv}", [.dictionaryEntry(.int32(1), .variant(.byte(1)))])
        #expect(value.dictionary == nil)
        #expect(value.entries?.count == 1)
    }
}

@Suite struct DBusErrorTests {
    @Test func theTextNamesTheOperationThePeersErrorAndItsMessage() {
        let refused = DBusError(
            .call,
            operation: "org.bluez.Adapter1.StartDiscovery on /org/bluez/hci0",
            name: "org.bluez.Error.NotReady",
            message: "Resource Not Ready"
        )
        #expect(
            refused.description
                == "org.bluez.Adapter1.StartDiscovery on /org/bluez/hci0: org.bluez.Error.NotReady: Resource Not Ready"
        )
        let lost = DBusError(.disconnected, operation: "process", message: "the bus closed the connection")
        #expect(lost.description == "process: the bus closed the connection")
        #expect(refused.code.description == "call" && lost.code.description == "disconnected")
        #expect(
            refused != DBusError(.reply, operation: refused.operation, name: refused.name, message: refused.message)
        )
    }

    @Test func aCheckTurnsANegativeReturnIntoTheErrnoText() throws {
        try DBusMessageCodec.check(0, "process")
        try DBusMessageCodec.check(3, "process")
        #expect(throws: DBusError(.disconnected, operation: "process", message: "Connection reset by peer")) {
            try DBusMessageCodec.check(-104, "process", code: .disconnected)  // ECONNRESET
        }
        #expect(throws: DBusError(.message, operation: "append", message: "Invalid argument")) {
            try DBusMessageCodec.check(-22, "append")  // EINVAL
        }
    }
}
