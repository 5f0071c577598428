import Foundation

/// Ed25519 verification by a library other than the daemon's libsodium: Python's
/// `cryptography` package (OpenSSL), so that a signature the daemon made is checked
/// the way a relying party would check it.
public enum IndependentEd25519 {
    /// True when `signature` is a valid Ed25519 signature of exactly `message`
    /// under the raw 32-byte `publicKey`.
    public static func verify(publicKey: Data, signature: Data, message: Data) throws -> Bool {
        let request: [String: String] = [
            "publicKey": publicKey.base64EncodedString(),
            "signature": signature.base64EncodedString(),
            "message": message.base64EncodedString(),
        ]
        let result = try Subprocess.run(
            "/usr/bin/python3", ["-c", script],
            input: try JSONSerialization.data(withJSONObject: request)
        )
        switch result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "valid": return true
        case "invalid": return false
        default: throw TestKitError("the verifier failed (is python3-cryptography installed?): \(result)")
        }
    }

    private static let script = #"""
    import base64, json, sys
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    request = json.load(sys.stdin)
    key = Ed25519PublicKey.from_public_bytes(base64.b64decode(request["publicKey"], validate=True))
    try:
        key.verify(base64.b64decode(request["signature"], validate=True), base64.b64decode(request["message"], validate=True))
        print("valid")
    except InvalidSignature:
        print("invalid")
    """#
}
