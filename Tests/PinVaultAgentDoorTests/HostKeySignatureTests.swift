import Foundation
import PinVaultAgentDoor
import PinVaultProtocol
import PinVaultSSHProtocol
import XCTest

/// Host key signatures as OpenSSH makes them, checked by `HostKeySignature`: the
/// oracle is OpenSSH itself. `ssh-keygen -Y sign` signs with keys of every type a server
/// offers, and the signature in its SSHSIG file is the key's signature of the SSHSIG
/// preimage (PROTOCOL.sshsig), which these tests rebuild.
final class HostKeySignatureTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ssh-keygen") else {
            throw XCTSkip("no /usr/bin/ssh-keygen (make test-deps installs openssh-client)")
        }
        directory = NSTemporaryDirectory() + "pinvault-hostkey-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ssh-keygen")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw XCTSkip("ssh-keygen \(arguments) failed") }
        return String(decoding: data, as: UTF8.self)
    }

    /// A key of `type` (`-t`, `-b`), its blob, and OpenSSH's signature blob over the
    /// SSHSIG preimage of a message, with that preimage.
    private func signed(_ type: String, bits: String? = nil) throws -> (key: [UInt8], signature: [UInt8], data: [UInt8]) {
        let key = directory + "/\(type)\(bits ?? "")"
        _ = try run(["-q", "-t", type] + (bits.map { ["-b", $0] } ?? []) + ["-N", "", "-f", key])
        let message = directory + "/message"
        try Data("a session identifier stands in here".utf8).write(to: URL(fileURLWithPath: message))
        try? FileManager.default.removeItem(atPath: message + ".sig")
        _ = try run(["-Y", "sign", "-f", key, "-n", "file", message])
        let armored = try String(contentsOfFile: message + ".sig", encoding: .utf8)
        let body = armored.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let blob = try Base64.decode(body)
        // "SSHSIG", uint32 version, string publickey, string namespace, string reserved,
        // string hash_algorithm, string signature.
        return try blob.withUnsafeBytes { (bytes) throws -> ([UInt8], [UInt8], [UInt8]) in
            var reader = SSHWireReader(UnsafeRawBufferPointer(rebasing: bytes[6...]))
            _ = try reader.uint32()
            let publicKey = Array(try reader.string())
            let namespace = Array(try reader.string())
            _ = try reader.string()
            let hash = Array(try reader.string())
            let signature = Array(try reader.string())
            let contents = try Data(contentsOf: URL(fileURLWithPath: message))
            let hashed = String(decoding: hash, as: UTF8.self) == "sha512" ? sha512(contents) : []
            let preimage = SSHSignedData.SSHSIGPreimage(namespace: namespace, reserved: [], hashAlgorithm: hash, hash: hashed).encoded
            return (publicKey, signature, preimage)
        }
    }

    private func sha512(_ data: Data) -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha512sum")
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try? process.run()
        input.fileHandleForWriting.write(data)
        try? input.fileHandleForWriting.close()
        let hex = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).prefix(128)
        process.waitUntilExit()
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    func testEveryHostKeyTypeOpenSSHOffers_verifies_andAnyChangeDoesNot() throws {
        for (type, bits) in [("ed25519", nil), ("ecdsa", "256"), ("ecdsa", "384"), ("ecdsa", "521"), ("rsa", "3072")] {
            let (key, signature, data) = try signed(type, bits: bits)
            XCTAssertTrue(HostKeySignature.verify(hostKeyBlob: key, signatureBlob: signature, data: data), "\(type) \(bits ?? "")")
            var otherData = data
            otherData[otherData.count - 1] ^= 1
            XCTAssertFalse(HostKeySignature.verify(hostKeyBlob: key, signatureBlob: signature, data: otherData), "\(type): other data")
            var otherSignature = signature
            otherSignature[otherSignature.count - 3] ^= 0x40
            XCTAssertFalse(HostKeySignature.verify(hostKeyBlob: key, signatureBlob: otherSignature, data: data), "\(type): changed signature")
            XCTAssertFalse(HostKeySignature.verify(hostKeyBlob: key + [0], signatureBlob: signature, data: data), "\(type): trailing byte")
        }
    }

    func testAKeyOfOneType_doesNotVerifyAnothersSignature() throws {
        let ed25519 = try signed("ed25519")
        let ecdsa = try signed("ecdsa", bits: "256")
        XCTAssertFalse(HostKeySignature.verify(hostKeyBlob: ed25519.key, signatureBlob: ecdsa.signature, data: ed25519.data))
        XCTAssertFalse(HostKeySignature.verify(hostKeyBlob: ecdsa.key, signatureBlob: ed25519.signature, data: ecdsa.data))
        XCTAssertFalse(HostKeySignature.verify(hostKeyBlob: [], signatureBlob: [], data: []))
    }

    /// RSA with SHA-1 (`ssh-rsa` signatures) is refused, as OpenSSH refuses it now.
    func testAnRSASignatureWithSHA1_isRefused() throws {
        let (key, signature, data) = try signed("rsa", bits: "2048")
        let renamed = try signature.withUnsafeBytes { bytes throws -> [UInt8] in
            var reader = SSHWireReader(bytes)
            _ = try reader.string()
            var writer = SSHWireWriter()
            writer.string(utf8: "ssh-rsa")
            writer.string(Array(try reader.string()))
            return writer.bytes
        }
        XCTAssertFalse(HostKeySignature.verify(hostKeyBlob: key, signatureBlob: renamed, data: data))
    }
}
