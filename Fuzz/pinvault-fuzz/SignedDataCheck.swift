import PinVaultSSHProtocol

/// The `ssh-data` target: any bytes through the parsers that decide what the ssh-agent
/// door signs and what Authenticate and Sign refuse (`SSHSignedData`). Besides never
/// trapping, what they accept must be exact and consistent:
/// - whatever `parse` accepts encodes back to exactly the input (every length
///   consistent, nothing after the last field);
/// - whatever it accepts also `resemblesSSHData`: Authenticate and Sign never sign what
///   an agent would;
/// - the parts `parse` reads as names hold no NUL, and a SSHSIG hash has its algorithm's size.
/// The same bytes go through the two other readers of what a peer sends the agents: an
/// OpenSSH certificate (what `ssh-cert add` attaches, and an agent knows a key by) and a
/// `session-bind@openssh.com` body. What they accept is exact too: the certificate is its
/// input, resembles SSH data (so Authenticate never signs one) and names the key the
/// agents look up; the binding encodes back to its input.
enum SignedDataCheck {
    static func run(_ input: UnsafeRawBufferPointer) {
        let resembles = SSHSignedData.resemblesSSHData(input)
        switch SSHSignedData.parse(input) {
        case .userauth(let request):
            guard request.encoded.elementsEqual(input) else { FuzzHarness.trap("a userauth request that is not its input") }
            guard resembles else { FuzzHarness.trap("a userauth request that does not resemble SSH data") }
            for name in [request.user, request.service, request.method, request.algorithm] where name.contains(0) {
                FuzzHarness.trap("a userauth name with a NUL")
            }
            guard (request.hostKeyBlob != nil) == request.method.elementsEqual("publickey-hostbound-v00@openssh.com".utf8) else {
                FuzzHarness.trap("a host key where the method has none, or none where it has one")
            }
        case .sshsig(let preimage):
            guard preimage.encoded.elementsEqual(input) else { FuzzHarness.trap("an SSHSIG preimage that is not its input") }
            guard resembles else { FuzzHarness.trap("an SSHSIG preimage that does not resemble SSH data") }
            guard !preimage.namespace.isEmpty, !preimage.namespace.contains(0),
                  preimage.hash.count == (preimage.hashAlgorithm.elementsEqual("sha256".utf8) ? 32 : 64)
            else { FuzzHarness.trap("an SSHSIG preimage PROTOCOL.sshsig forbids") }
        case nil:
            break
        }
        if let certificate = try? SSHCertificate(blob: input) {
            guard certificate.blob.elementsEqual(input), certificate.publicKey.count == 32 else {
                FuzzHarness.trap("a certificate that is not its input")
            }
            guard resembles else { FuzzHarness.trap("a certificate that does not resemble SSH data") }
            guard SSHAgentOffer.publicKey(ofBlob: Array(input)) == certificate.publicKey else {
                FuzzHarness.trap("a certificate whose key the agents would not find")
            }
        }
        if let bind = try? SSHSessionBind.parse(input), !bind.encoded.elementsEqual(input) {
            FuzzHarness.trap("a session-bind that is not its input")
        }
    }
}
