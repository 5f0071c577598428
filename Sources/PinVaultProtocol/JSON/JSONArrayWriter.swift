import PinVaultCrypto

/// Writes the elements of one JSON array; obtained from `JSONWriter.writeArray` or a
/// parent writer.
public struct JSONArrayWriter {
    private let buffer: ReplyBuffer
    private var isFirst = true

    init(buffer: ReplyBuffer) {
        self.buffer = buffer
    }

    /// A string element.
    public mutating func element(_ value: String) {
        separate()
        JSONWriter.appendString(value, to: buffer)
    }

    /// An integer element.
    public mutating func element(_ value: Int64) {
        separate()
        JSONWriter.appendInt(value, to: buffer)
    }

    /// A boolean element.
    public mutating func element(_ value: Bool) {
        separate()
        JSONWriter.appendBool(value, to: buffer)
    }

    /// A `null` element.
    public mutating func nullElement() {
        separate()
        JSONWriter.appendNull(to: buffer)
    }

    /// An object element.
    public mutating func objectElement(_ body: (inout JSONObjectWriter) -> Void) {
        separate()
        JSONWriter.writeObject(into: buffer, body)
    }

    /// An array element.
    public mutating func arrayElement(_ body: (inout JSONArrayWriter) -> Void) {
        separate()
        JSONWriter.writeArray(into: buffer, body)
    }

    private mutating func separate() {
        if !isFirst { buffer.append(UInt8(ascii: ",")) }
        isFirst = false
    }
}
