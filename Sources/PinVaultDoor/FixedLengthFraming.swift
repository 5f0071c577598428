/// Messages of one fixed length, back to back with nothing between them: a HID report
/// stream (CTAPHID's 64 bytes each way) carried over a byte stream.
public struct FixedLengthFraming: Framing {
    public let length: Int

    public init(length: Int) {
        self.length = max(length, 1)
    }

    public var maxMessageBytes: Int { length }

    public func next(in received: UnsafeRawBufferPointer) -> FrameEvent {
        received.count >= length ? .frame(0..<length) : .needMore
    }

    public func compact(_ buffer: UnsafeMutableRawBufferPointer, filled: Int) -> Int {
        guard let base = buffer.baseAddress, filled >= length else { return max(filled, 0) }
        let left = filled - length
        if left > 0 { base.copyMemory(from: base + length, byteCount: left) }
        // What moved down, and the report consumed, leave no copy behind.
        (base + left).initializeMemory(as: UInt8.self, repeating: 0, count: filled - left)
        return left
    }
}
