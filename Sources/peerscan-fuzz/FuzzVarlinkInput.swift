// A libFuzzer target over what a client can send: Varlink framing (NUL-terminated messages, the size limit) and the
// decoding of each message as a call, its parameter names against io.peerscan's definition, and the parameters of
// every io.peerscan method; and, for the client side, the decoding of replies. Built by `make fuzz` with
// `-sanitize=fuzzer,address -DFUZZING` (libFuzzer provides `main`); an ordinary build makes a stub that says so.
#if FUZZING
import Foundation
import NIOCore
import PeerScanModel
import Varlink
@testable import VarlinkServer

private let peerscanMethods = VarlinkMethodParameters(definition: PeerScanWire.definition)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVarlinkInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var buffer = ByteBuffer(bytes: UnsafeBufferPointer(start: data, count: size))
    var decoder = VarlinkFrameDecoder(maximumMessageSize: 4096)
    while let frame = try? decoder.decode(buffer: &buffer) {
        decode(Data(frame.readableBytesView))
    }
    return 0
}

/// libFuzzer's driver (the fuzzer's `main` is not linked: SwiftPM names the executable's entry point itself).
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// The entry point SwiftPM links the executable with: hands over to libFuzzer.
@_cdecl("peerscan_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzVarlinkInput(data, size) }
}

private func decode(_ message: Data) {
    if let reply = try? VarlinkReply(message: message) {
        _ = try? reply.parameters(as: PeerScanWire.MonitorReply.self)
        _ = try? reply.parameters(as: PeerScanWire.GetDeviceReply.self)
    }
    guard let call = try? VarlinkCall(message: message) else { return }
    _ = try? call.parameterNames()
    _ = peerscanMethods.parameterNames(of: call.methodName)
    switch call.methodName {
    case "Monitor": _ = try? call.parameters(as: PeerScanWire.MonitorParameters.self)
    case "SetScanning": _ = try? call.parameters(as: PeerScanWire.SetScanningParameters.self)
    case "GetDevice", "ForgetDevice": _ = try? call.parameters(as: PeerScanWire.DeviceParameters.self)
    default: _ = try? call.parameters(as: [String: String].self)
    }
}
#else
import Glibc

@main
enum FuzzVarlinkInputStub {
    static func main() {
        let message = "peerscan-fuzz is a libFuzzer target: build and run it with `make fuzz`.\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        exit(64)
    }
}
#endif
