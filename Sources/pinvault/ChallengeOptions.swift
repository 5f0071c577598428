import ArgumentParser
import Glibc
import PinVaultProtocol
import PinVaultSystem

/// The challenge `auth` signs: exactly these bytes, given one of three ways.
struct ChallengeOptions: ParsableArguments {
    /// The daemon signs 1 to 1024 bytes.
    static let sizeLimit = 1...1024

    @Option(help: ArgumentHelp("The challenge as standard base64.", valueName: "base64"))
    var challengeBase64: String?

    @Option(help: ArgumentHelp("The challenge as hexadecimal digits.", valueName: "hex"))
    var challengeHex: String?

    @Option(help: ArgumentHelp(
        "Read the challenge's bytes from a file ('-' = standard input, unless the PIN comes from there).",
        valueName: "path"
    ))
    var challengeFile: String?

    func validate() throws {
        let given = [challengeBase64, challengeHex, challengeFile].compactMap { $0 }.count
        guard given == 1 else {
            throw ValidationError("give the challenge with exactly one of --challenge-base64, --challenge-hex or --challenge-file")
        }
    }

    /// The challenge's bytes. `standardInputTaken` when the PIN is read from stdin.
    func bytes(standardInputTaken: Bool) throws(CommandFailure) -> [UInt8] {
        let decoded: [UInt8]
        if let challengeBase64 {
            guard let bytes = try? Base64.decode(challengeBase64) else {
                throw .usage("--challenge-base64 is not standard base64")
            }
            decoded = bytes
        } else if let challengeHex {
            guard let bytes = Self.hexBytes(challengeHex) else {
                throw .usage("--challenge-hex needs an even number of hexadecimal digits")
            }
            decoded = bytes
        } else {
            decoded = try readFile(challengeFile ?? "-", standardInputTaken: standardInputTaken)
        }
        guard Self.sizeLimit.contains(decoded.count) else {
            throw .usage("the challenge must be 1 to 1024 bytes; it is \(decoded.count)")
        }
        return decoded
    }

    /// Reads at most one byte past the limit from standard input or `path`, so that a
    /// FIFO or a device such as /dev/zero is never read to its end; refuses more.
    private func readFile(_ path: String, standardInputTaken: Bool) throws(CommandFailure) -> [UInt8] {
        let limit = Self.sizeLimit.upperBound
        let source = path == "-" ? "standard input" : "the challenge file \(path)"
        let fd: Int32
        if path == "-" {
            guard !standardInputTaken else {
                throw .usage("the PIN comes from standard input, so the challenge cannot: use --challenge-file PATH, --pin-fd or the terminal")
            }
            fd = STDIN_FILENO
        } else {
            guard let opened = try? Syscall.run("open", { open(path, O_RDONLY | O_CLOEXEC) }) else {
                throw .usage("cannot read \(source)")
            }
            fd = opened
        }
        defer { if path != "-" { close(fd) } }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        let count: Int
        do {
            count = try bytes.withUnsafeMutableBytes { (buffer) throws(SystemError) in
                try FileDescriptor.readFully(fd, into: buffer)
            }
        } catch {
            throw .usage("cannot read \(source)")
        }
        guard count <= limit else {
            throw .usage("the challenge must be 1 to \(limit) bytes; \(source) holds more")
        }
        return Array(bytes.prefix(count))
    }

    /// The bytes of `text` as hex digits (either case), or nil.
    static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
