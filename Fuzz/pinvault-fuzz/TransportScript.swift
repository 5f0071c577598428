/// A transport fuzz input read as operations. Each starts with one byte: its low three
/// bits are the kind, the next two a connection slot (0–3), the top three an argument.
///
///     0 open      slot as peer (argument's low two bits, modulo 3: user 1000, admin 0,
///                 user 1001); its third bit: the kernel's least socket buffers
///     1 write     slot: the next byte L, then L + 1 + 256 × argument bytes, in one send
///     2 turn      argument + 1 turns of the loop that wait for nothing
///     3 settle    turns until no message is in flight
///     4 shut      slot's writing side (SHUT_WR)
///     5 close     slot, entirely (the peer leaves)
///     6 read      what slot's socket holds
///     7 clock     the vault's clock moves argument + 1 seconds
///
/// Any byte string is a script: an operation on a slot not open does nothing, and a
/// write cut short by the end of the input sends what there is. `Fuzz/make-corpus.py`
/// writes the seeds in this form.
struct TransportScript: Sequence, IteratorProtocol {
    enum Operation {
        case open(slot: Int, peer: Int, smallBuffers: Bool)
        case write(slot: Int, bytes: UnsafeRawBufferPointer)
        case turn(count: Int)
        case settle
        case shutdownWriting(slot: Int)
        case close(slot: Int)
        case read(slot: Int)
        case advanceClock(seconds: Int64)
    }

    private let input: UnsafeRawBufferPointer
    private var offset = 0

    init(_ input: UnsafeRawBufferPointer) {
        self.input = input
    }

    mutating func next() -> Operation? {
        guard offset < input.count else { return nil }
        let byte = input[offset]
        offset += 1
        let slot = Int(byte >> 3) & 3
        let argument = Int(byte >> 5)
        switch byte & 7 {
        case 0:
            return .open(slot: slot, peer: (argument & 3) % 3, smallBuffers: argument & 4 != 0)
        case 1:
            guard offset < input.count else { return nil }
            let length = Int(input[offset]) + 1 + 256 * argument
            offset += 1
            let end = Swift.min(offset + length, input.count)
            defer { offset = end }
            return .write(slot: slot, bytes: UnsafeRawBufferPointer(rebasing: input[offset..<end]))
        case 2:
            return .turn(count: argument + 1)
        case 3:
            return .settle
        case 4:
            return .shutdownWriting(slot: slot)
        case 5:
            return .close(slot: slot)
        case 6:
            return .read(slot: slot)
        default:
            return .advanceClock(seconds: Int64(argument + 1))
        }
    }
}
