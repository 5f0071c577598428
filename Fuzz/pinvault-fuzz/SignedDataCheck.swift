import PinVaultSSHProtocol

/// The `ssh-data` target: any bytes through the parsers that decide what the ssh-agent
/// door signs and what Authenticate and Sign refuse (`SSHSignedData`). Besides never
/// trapping, what they accept must be exact and consistent:
/// - whatever `parse` accepts encodes back to exactly the input (every length
///   consistent, nothing after the last field);
/// - whatever it accepts also `resemblesSSHData`: Authenticate and Sign never sign what
///   an agent would;
/// - the parts `parse` reads as names hold no NUL, and a SSHSIG hash has its algorithm's size.
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
    }
}
