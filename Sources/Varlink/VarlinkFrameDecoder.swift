import NIOCore

/// Splits a byte stream into Varlink messages: JSON texts terminated by a NUL byte.
///
/// A message longer than `maximumMessageSize` without its terminator is an error, so a peer cannot make us buffer
/// without bound.
struct VarlinkFrameDecoder: NIOSingleStepByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    let maximumMessageSize: Int

    mutating func decode(buffer: inout ByteBuffer) throws -> ByteBuffer? {
        let readable = buffer.readableBytesView
        guard let terminator = readable.firstIndex(of: 0) else {
            if readable.count > maximumMessageSize {
                throw VarlinkProtocolError.messageTooLarge(limit: maximumMessageSize)
            }
            return nil
        }
        let length = terminator - readable.startIndex
        guard length <= maximumMessageSize else { throw VarlinkProtocolError.messageTooLarge(limit: maximumMessageSize) }
        let message = buffer.readSlice(length: length)
        buffer.moveReaderIndex(forwardBy: 1)
        return message
    }

    mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> ByteBuffer? {
        try decode(buffer: &buffer)
    }
}
