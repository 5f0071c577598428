/// A fuzz input read as a script, a byte at a time (zeros past its end for operands):
/// what the CTAPHID and CTAP command checks drive their peers with.
struct FuzzScript {
    let input: UnsafeRawBufferPointer
    var offset = 0
    init(_ input: UnsafeRawBufferPointer) { self.input = input }

    mutating func byte() -> UInt8? {
        guard offset < input.count else { return nil }
        defer { offset += 1 }
        return input[offset]
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in byte() ?? 0 }
    }
}
