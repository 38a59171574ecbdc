import NIOCore

/// Splits a byte stream into Varlink messages: JSON texts terminated by a NUL byte.
///
/// A message longer than `maximumMessageSize` without its terminator is an error, so a peer cannot make us buffer
/// without bound.
package struct VarlinkFrameDecoder: NIOSingleStepByteToMessageDecoder {
    package typealias InboundOut = ByteBuffer

    let maximumMessageSize: Int
    /// How many readable bytes were already searched for a terminator: a message arriving in many small reads is
    /// scanned once, not once per read.
    private var scanned = 0

    package init(maximumMessageSize: Int) {
        self.maximumMessageSize = maximumMessageSize
    }

    package mutating func decode(buffer: inout ByteBuffer) throws -> ByteBuffer? {
        let readable = buffer.readableBytesView
        guard let terminator = readable.dropFirst(scanned).firstIndex(of: 0) else {
            if readable.count > maximumMessageSize {
                throw VarlinkProtocolError.messageTooLarge(limit: maximumMessageSize)
            }
            scanned = readable.count
            return nil
        }
        scanned = 0
        let length = terminator - readable.startIndex
        guard length <= maximumMessageSize else {
            throw VarlinkProtocolError.messageTooLarge(limit: maximumMessageSize)
        }
        let message = buffer.readSlice(length: length)
        buffer.moveReaderIndex(forwardBy: 1)
        return message
    }

    package mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> ByteBuffer? {
        try decode(buffer: &buffer)
    }
}
