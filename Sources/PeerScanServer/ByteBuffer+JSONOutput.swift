// A reply's frame as the output of PeerScanModel's streaming encoders: a snapshot reply is written straight into the
// buffer that is sent (PeerScanInterface.snapshotReply), not into a `Data` copied into it afterwards.

import NIOCore
import PeerScanModel

extension ByteBuffer: JSONOutput {
    public static var placeholder: ByteBuffer { ByteBuffer() }

    public mutating func write(_ bytes: UnsafeRawBufferPointer) { writeBytes(bytes) }
}
