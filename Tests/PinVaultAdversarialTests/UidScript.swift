import Foundation
import PinVaultTestKit

/// A Python script run as `uid` (through setpriv, no groups) that prints one line once
/// it holds what it opened, then keeps it until released: its standard input closed.
final class UidScript: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    /// What the script printed first.
    let firstLine: String

    init(uid: UInt32, script: String, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--", "/usr/bin/python3", "-c", script]
            + arguments
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        firstLine = String(decoding: line, as: UTF8.self)
    }

    func release() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
