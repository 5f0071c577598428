import Foundation

/// Signature verification by a library other than the daemon's: Python's
/// `cryptography` package (OpenSSL), so that a signature the daemon made is checked
/// the way a relying party would check it.
public enum IndependentEd25519 {
    /// True when `signature` is a valid signature of exactly `message` under the raw
    /// `publicKey` of `algorithm` (the wire name: `ed25519`, the raw 32-byte key and
    /// 64-byte signature; `p256`, the SEC1 point and a DER ECDSA signature over SHA-256).
    public static func verify(publicKey: Data, signature: Data, message: Data, algorithm: String = "ed25519") throws -> Bool {
        let request: [String: String] = [
            "algorithm": algorithm,
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
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    request = json.load(sys.stdin)
    raw = base64.b64decode(request["publicKey"], validate=True)
    signature = base64.b64decode(request["signature"], validate=True)
    message = base64.b64decode(request["message"], validate=True)
    try:
        if request["algorithm"] == "p256":
            ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw).verify(signature, message, ec.ECDSA(hashes.SHA256()))
        else:
            Ed25519PublicKey.from_public_bytes(raw).verify(signature, message)
        print("valid")
    except InvalidSignature:
        print("invalid")
    """#
}
