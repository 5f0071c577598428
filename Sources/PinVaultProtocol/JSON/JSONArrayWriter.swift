import PinVaultCrypto

/// Writes the elements of one JSON array; obtained from `JSONWriter.writeArray` or a
/// parent writer.
public struct JSONArrayWriter: ~Copyable {
    private var output: ReplyBytes
    private var isFirst = true

    init(output: consuming ReplyBytes) {
        self.output = output
    }

    /// Gives the bytes back to the container's writer.
    consuming func finish() -> ReplyBytes {
        output
    }

    /// A string element.
    public mutating func element(_ value: String) {
        separate()
        JSONWriter.appendString(value, to: &output)
    }

    /// An integer element.
    public mutating func element(_ value: Int64) {
        separate()
        JSONWriter.appendInt(value, to: &output)
    }

    /// A boolean element.
    public mutating func element(_ value: Bool) {
        separate()
        JSONWriter.appendBool(value, to: &output)
    }

    /// A `null` element.
    public mutating func nullElement() {
        separate()
        JSONWriter.appendNull(to: &output)
    }

    /// An object element.
    public mutating func objectElement(_ body: (inout JSONObjectWriter) -> Void) {
        separate()
        JSONWriter.writeObject(into: &output, body)
    }

    /// An array element.
    public mutating func arrayElement(_ body: (inout JSONArrayWriter) -> Void) {
        separate()
        JSONWriter.writeArray(into: &output, body)
    }

    private mutating func separate() {
        if !isFirst { output.append(UInt8(ascii: ",")) }
        isFirst = false
    }
}
