/// Reads RFC 4251 data types (byte, boolean, uint32, string) from a message, never
/// past its end. Every read that would go past it throws; nothing is copied but
/// what a caller asks for.
public struct SSHWireReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Whether every byte was read.
    public var isAtEnd: Bool { offset == bytes.count }

    public mutating func byte() throws(SSHAgentMessageError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated }
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func boolean() throws(SSHAgentMessageError) -> Bool {
        try byte() != 0
    }

    public mutating func uint32() throws(SSHAgentMessageError) -> UInt32 {
        guard bytes.count - offset >= 4 else { throw .truncated }
        defer { offset += 4 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
            | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    public mutating func uint64() throws(SSHAgentMessageError) -> UInt64 {
        let high = try uint32()
        return UInt64(high) << 32 | UInt64(try uint32())
    }

    /// A `string`: a uint32 length, then that many bytes (a view into the message).
    public mutating func string() throws(SSHAgentMessageError) -> UnsafeRawBufferPointer {
        let length = try uint32()
        guard UInt64(length) <= UInt64(bytes.count - offset) else { throw .truncated }
        defer { offset += Int(length) }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(length)])
    }

    /// A `string` that OpenSSH reads as a C string (`sshbuf_get_cstring`): one holding
    /// a NUL is malformed.
    public mutating func cString() throws(SSHAgentMessageError) -> UnsafeRawBufferPointer {
        let value = try string()
        guard !value.contains(0) else { throw .malformedName }
        return value
    }

    /// Everything not read yet (an extension's contents).
    public mutating func rest() -> UnsafeRawBufferPointer {
        defer { offset = bytes.count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset...])
    }

    /// Throws unless every byte was read: a message with trailing bytes is malformed.
    public func expectEnd() throws(SSHAgentMessageError) {
        guard isAtEnd else { throw .trailingBytes }
    }
}

/// Appends RFC 4251 data types to a byte array.
public struct SSHWireWriter {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 128) {
        bytes.reserveCapacity(capacity)
    }

    public mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    public mutating func uint64(_ value: UInt64) {
        uint32(UInt32(truncatingIfNeeded: value >> 32))
        uint32(UInt32(truncatingIfNeeded: value))
    }

    public mutating func uint32(_ value: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    /// Bytes as they are, no length before them.
    public mutating func raw<C: Collection>(_ value: C) where C.Element == UInt8 {
        bytes.append(contentsOf: value)
    }

    public mutating func string<C: Collection>(_ value: C) where C.Element == UInt8 {
        uint32(UInt32(value.count))
        bytes.append(contentsOf: value)
    }

    public mutating func string(utf8 text: String) {
        uint32(UInt32(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }

    /// Writes `value` over the four bytes at `offset` (a length written before what it
    /// counts).
    mutating func setUInt32(_ value: UInt32, at offset: Int) {
        bytes[offset] = UInt8(truncatingIfNeeded: value >> 24)
        bytes[offset + 1] = UInt8(truncatingIfNeeded: value >> 16)
        bytes[offset + 2] = UInt8(truncatingIfNeeded: value >> 8)
        bytes[offset + 3] = UInt8(truncatingIfNeeded: value)
    }
}
