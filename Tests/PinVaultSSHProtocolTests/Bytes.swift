import Foundation

/// SSH wire values for the tests, built independently of the codec under test.
enum Wire {
    static func uint32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xff), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    static func string(_ bytes: [UInt8]) -> [UInt8] { uint32(bytes.count) + bytes }
    static func string(_ text: String) -> [UInt8] { string(Array(text.utf8)) }

    /// A length-prefixed message.
    static func frame(_ type: UInt8, _ body: [UInt8] = []) -> [UInt8] { uint32(body.count + 1) + [type] + body }

    static func ed25519Blob(_ key: [UInt8]) -> [UInt8] { string("ssh-ed25519") + string(key) }

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
