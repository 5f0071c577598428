import PinVaultProtocol

/// `VarlinkFrameReader` must find the same frames however the stream is split into
/// reads, and must leave zeroes behind every frame it compacts away.
enum FrameSplitCheck {
    /// The frames of `input` read at once, checked against a read in small pieces
    /// (sizes from 1 to 7 bytes, chosen by the input's length) through a buffer of
    /// `maxMessageBytes`, as the daemon's `InputBuffer` reads a socket.
    static func frames(of input: UnsafeRawBufferPointer, maxMessageBytes: Int) -> [Range<Int>] {
        var whole = VarlinkFrameReader(maxMessageBytes: maxMessageBytes)
        var frames: [Range<Int>] = []
        scanning: while true {
            switch whole.next(in: input) {
            case .frame(let range):
                guard range.lowerBound >= 0, range.upperBound < input.count, input[range.upperBound] == 0 else {
                    FuzzHarness.trap("a frame outside the input or not ended by a NUL")
                }
                guard !input[range].contains(0) else { FuzzHarness.trap("a frame with a NUL inside") }
                frames.append(range)
            case .needMore, .tooLarge:
                break scanning
            }
        }
        let pieces = piecewise(input, maxMessageBytes: maxMessageBytes, step: input.count % 7 + 1)
        guard pieces.count == frames.count else {
            FuzzHarness.trap("\(pieces.count) frames read in pieces, \(frames.count) at once")
        }
        for (piece, frame) in zip(pieces, frames) where !piece.elementsEqual(input[frame]) {
            FuzzHarness.trap("a frame read in pieces differs from the frame read at once")
        }
        return frames
    }

    private static func piecewise(_ input: UnsafeRawBufferPointer, maxMessageBytes: Int, step: Int) -> [[UInt8]] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: maxMessageBytes, alignment: 1)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        guard let base = buffer.baseAddress, let source = input.baseAddress else { return [] }
        var reader = VarlinkFrameReader(maxMessageBytes: maxMessageBytes)
        var filled = 0
        var offset = 0
        var frames: [[UInt8]] = []
        while offset < input.count {
            let count = min(step, input.count - offset, maxMessageBytes - filled)
            guard count > 0 else { return frames }  // full without a NUL: too large
            (base + filled).copyMemory(from: source + offset, byteCount: count)
            filled += count
            offset += count
            taking: while true {
                switch reader.next(in: UnsafeRawBufferPointer(rebasing: buffer[..<filled])) {
                case .frame(let range):
                    frames.append(Array(buffer[range]))
                case .needMore:
                    break taking
                case .tooLarge:
                    return frames
                }
            }
            let start = reader.frameStart
            filled = reader.compact(buffer, filled: filled)
            guard !buffer[filled..<max(filled, start)].contains(where: { $0 != 0 }) else {
                FuzzHarness.trap("compact left bytes of a consumed frame behind")
            }
        }
        return frames
    }
}
