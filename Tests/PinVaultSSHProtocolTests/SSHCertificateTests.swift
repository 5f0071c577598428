import Foundation
import PinVaultCrypto
import PinVaultSSHProtocol
import XCTest

/// The reader of OpenSSH certificates (PROTOCOL.certkeys), on certificates that
/// OpenSSH 9.2's `ssh-keygen -s` made for one Ed25519 key: exact fields, every
/// truncation and any trailing byte refused, other key types and other things refused.
final class SSHCertificateTests: XCTestCase {
    /// The certified key: `ssh-keygen -t ed25519`.
    private let publicKey = Wire.hex("0cd7cefd9493dde158fcb70dbc2e64e5550da5775acf06a7e103aca448d032c6")

    /// `ssh-keygen -s ca -I alice@laptop -n alice,admin -z 42 -V 20260101000000Z:20270101000000Z` (an Ed25519 CA).
    private let userCertificate =
        "AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAID9Ss5vvoUXRwK3goYXNFF0X6fDlWTtU7Z62NPzvmUzd" +
        "AAAAIAzXzv2Uk93hWPy3DbwuZOVVDaV3Ws8Gp+EDrKRI0DLGAAAAAAAAACoAAAABAAAADGFsaWNlQGxhcHRvcAAAABIAAAAF" +
        "YWxpY2UAAAAFYWRtaW4AAAAAaVW5AAAAAABrNuyAAAAAAAAAAIIAAAAVcGVybWl0LVgxMS1mb3J3YXJkaW5nAAAAAAAAABdw" +
        "ZXJtaXQtYWdlbnQtZm9yd2FyZGluZwAAAAAAAAAWcGVybWl0LXBvcnQtZm9yd2FyZGluZwAAAAAAAAAKcGVybWl0LXB0eQAA" +
        "AAAAAAAOcGVybWl0LXVzZXItcmMAAAAAAAAAAAAAADMAAAALc3NoLWVkMjU1MTkAAAAgzTmJxaPzuOuAEA+TlL8iqRwxyxqk" +
        "T5WGornP3CiYqp0AAABTAAAAC3NzaC1lZDI1NTE5AAAAQOXtzxM1wwp90pyTxtKaqvU02xNVjy2Xu2mvBsYC/o6yOWtlgijF" +
        "9aul4dswYIcU6CYWJ0QeXXfw/DzrNCAzXAo="

    /// `ssh-keygen -s rsaca -I host -h -n host.example.org -z 7` (an RSA CA): a host certificate.
    private let hostCertificate =
        "AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAIIfzdSCQSezcf7JR9izKNliBOvGwQi5BUlsRDVZhsUun" +
        "AAAAIAzXzv2Uk93hWPy3DbwuZOVVDaV3Ws8Gp+EDrKRI0DLGAAAAAAAAAAcAAAACAAAABGhvc3QAAAAUAAAAEGhvc3QuZXhh" +
        "bXBsZS5vcmcAAAAAAAAAAP//////////AAAAAAAAAAAAAAAAAAABFwAAAAdzc2gtcnNhAAAAAwEAAQAAAQEAvm0dz8ZNxwXv" +
        "DXDaEHcChFU1TDnjDwjUk3aXthlFKUmxxyJtHAfe35Bf3oDn+cKx23NCkbvaXNVZSX0A5IK7j3jv1g7FD50QyHjmoXaB2WMF" +
        "sjgbLoSwtmSeoGQ3AJwKh/r6PD3EMN5Ez6yF084mlN2eTyo5YwuzddAek0jQqb2sCN17lYMIb7RxInyEjc5CS/Ct+txaosg6" +
        "SXnZLeBi6sKjeOhGFjdhBMGHl85Lx4ajnSIxDFVD5rddqPOFDR6d3vgsn8Z2d1csMfD2+/5Ug6jsao5PXeE0VJ3zeVcJW6hC" +
        "s7sjaEF+yerKBbO6seKKeZaYbzfaKGfIWlC5xvsW6wAAARQAAAAMcnNhLXNoYTItNTEyAAABAIJLyVfM59S5zxM+kxo/mN6w" +
        "HPLwYh5EMVZ7gi6KCQWEvmULBkjFAP09coQHy1iCTds9dO2lcbj/XwV/zGD2KPyewOynC0Dc0WL8C9pdaxFUJ+CLUHZlO+Y7" +
        "EkvAxW1ujOOQLmRyNtRfq8RVgMKYb5CEG9ICGVyZeyS5r7D+5VT3ox+s/pF88SG8jqvyFOHq1r4Z8mGPjvUc6KVVy1V39Xwb" +
        "EjEKb+WgZA25EJdYcRpw9d6/gVmNfPPamwZWZydIqaFjFN2ctURWsJb+tBdUAfSeOvFCoPgrnMqtsjWcQ5X/KI/d//Nj+TGv" +
        "bnshVSHNammf4I0FzydhMP4DxZGPgPc="

    /// `ssh-keygen -s rsaca -I anyone -V always:forever`: no principals, no bounds.
    private let unboundedCertificate =
        "AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAIBQCzrS+pIHUn64ebqG9L1U2ukXvD+pV9kRz33Vey9Dy" +
        "AAAAIAzXzv2Uk93hWPy3DbwuZOVVDaV3Ws8Gp+EDrKRI0DLGAAAAAAAAAAAAAAABAAAABmFueW9uZQAAAAAAAAAAAAAAAP//" +
        "////////AAAAAAAAAIIAAAAVcGVybWl0LVgxMS1mb3J3YXJkaW5nAAAAAAAAABdwZXJtaXQtYWdlbnQtZm9yd2FyZGluZwAA" +
        "AAAAAAAWcGVybWl0LXBvcnQtZm9yd2FyZGluZwAAAAAAAAAKcGVybWl0LXB0eQAAAAAAAAAOcGVybWl0LXVzZXItcmMAAAAA" +
        "AAAAAAAAARcAAAAHc3NoLXJzYQAAAAMBAAEAAAEBAL5tHc/GTccF7w1w2hB3AoRVNUw54w8I1JN2l7YZRSlJsccibRwH3t+Q" +
        "X96A5/nCsdtzQpG72lzVWUl9AOSCu49479YOxQ+dEMh45qF2gdljBbI4Gy6EsLZknqBkNwCcCof6+jw9xDDeRM+shdPOJpTd" +
        "nk8qOWMLs3XQHpNI0Km9rAjde5WDCG+0cSJ8hI3OQkvwrfrcWqLIOkl52S3gYurCo3joRhY3YQTBh5fOS8eGo50iMQxVQ+a3" +
        "XajzhQ0end74LJ/GdndXLDHw9vv+VIOo7GqOT13hNFSd83lXCVuoQrO7I2hBfsnqygWzurHiinmWmG832ihnyFpQucb7FusA" +
        "AAEUAAAADHJzYS1zaGEyLTUxMgAAAQAz4RGsKYeXmj9sTGDQKItXUvX0we6EB0jSi88VtpdxGsOJjEcJUFCH0nUyTD6fnhcy" +
        "ZIsV7W0V8kYFCb6xg6Wjq7skVt0KKL++oxIoyizY2i4pZhfRLTISPolXX/chYgF5BzCF957qLJLT1vs+X9c4MfwWhJlu721R" +
        "B5P/QYdkcbnyaLYIDAV8+/Jf5Kfvpv56drwhfcsQaIs2CnIBazCNDmqMNDCkTNubFxVK1Fnb4RXaZyK05O2I3aZxbYVNBvpW" +
        "+Q75167fBpNUjhcj6Xzmh0QDpIqzHYUPtzbv0ntmqYWH2zkFSVECU21fNmHYqwFJ4dJ+Znq8QUIPkLvB8FFw"

    /// `ssh-keygen -s ca -I ec` of an ECDSA key: not an Ed25519 certificate.
    /// `ssh-keygen -s ca -I x -n alice -V always:forever` of an ECDSA P-384 key: a type
    /// PinVault has no key of.
    private let p384Certificate =
        "AAAAKGVjZHNhLXNoYTItbmlzdHAzODQtY2VydC12MDFAb3BlbnNzaC5jb20AAAAgAJsqsDtpdb6iWjpkpumqJqhlv8nFp6k6" +
        "vFarlm+MhFMAAAAIbmlzdHAzODQAAABhBE3hEvrf1eQ5eHPcDzG954cP+D17Ar5ZHxrrhFjKZIRuQunMRNr+WJM/TSK9bosg" +
        "PpKaMi7Wf+yAVTK50QBgZbnU2vRvrRpO7IJQaQaXnrdudyAKYpVzZB0eyi+m9ZejcAAAAAAAAAAAAAAAAQAAAAF4AAAACQAA" +
        "AAVhbGljZQAAAAAAAAAA//////////8AAAAAAAAAggAAABVwZXJtaXQtWDExLWZvcndhcmRpbmcAAAAAAAAAF3Blcm1pdC1h" +
        "Z2VudC1mb3J3YXJkaW5nAAAAAAAAABZwZXJtaXQtcG9ydC1mb3J3YXJkaW5nAAAAAAAAAApwZXJtaXQtcHR5AAAAAAAAAA5w" +
        "ZXJtaXQtdXNlci1yYwAAAAAAAAAAAAAAMwAAAAtzc2gtZWQyNTUxOQAAACA69YieEa60p0wXsVENhcLlb+DYimxhtrNwPcK0" +
        "pyNFygAAAFMAAAALc3NoLWVkMjU1MTkAAABAy75Pl5ZFqQMYQLNq3w0i3MZLWkl2vUq9ontVVwCi6XzVubMuZf/en/nQwTJy" +
        "/0Dl5J0r3meiLYzVoNclrXoyCA=="

    private let ecdsaCertificate =
        "AAAAKGVjZHNhLXNoYTItbmlzdHAyNTYtY2VydC12MDFAb3BlbnNzaC5jb20AAAAgR6pUu0tBiFMuFAkTV6q54NVY+iMiQ1V9" +
        "6JkA/nSpY7YAAAAIbmlzdHAyNTYAAABBBC6FfIrNy7oPD8H0m0HfbNl5C+9gHwthuO3MlwLgaKHw2tHMyxWSmGxi5TaTN91i" +
        "nxkPxPmWBAH7gscWr3DnAZAAAAAAAAAAAAAAAAEAAAACZWMAAAAAAAAAAAAAAAD//////////wAAAAAAAACCAAAAFXBlcm1p" +
        "dC1YMTEtZm9yd2FyZGluZwAAAAAAAAAXcGVybWl0LWFnZW50LWZvcndhcmRpbmcAAAAAAAAAFnBlcm1pdC1wb3J0LWZvcndh" +
        "cmRpbmcAAAAAAAAACnBlcm1pdC1wdHkAAAAAAAAADnBlcm1pdC11c2VyLXJjAAAAAAAAAAAAAAAzAAAAC3NzaC1lZDI1NTE5" +
        "AAAAIM05icWj87jrgBAPk5S/IqkcMcsapE+VhqK5z9womKqdAAAAUwAAAAtzc2gtZWQyNTUxOQAAAEBa2qtVMFfMJfhb2V75" +
        "28cql8oDmzl+xZBJliHm5AGzmF7/nll8UpROdVtxwm1+v6kNVmQkS+yIvxya9cISuygJ"

    private func blob(_ base64: String) throws -> [UInt8] {
        [UInt8](try XCTUnwrap(Data(base64Encoded: base64)))
    }

    private func parse(_ blob: [UInt8]) throws -> SSHCertificate {
        try blob.withUnsafeBytes { bytes in try SSHCertificate(blob: bytes) }
    }

    func testAUserCertificate_readsAsSshKeygenMadeIt() throws {
        let certificate = try parse(try blob(userCertificate))
        XCTAssertEqual(certificate.kind, .user)
        XCTAssertEqual(certificate.publicKey, publicKey)
        XCTAssertEqual(certificate.serial, 42)
        XCTAssertEqual(certificate.keyId, Array("alice@laptop".utf8))
        XCTAssertEqual(certificate.principals, [Array("alice".utf8), Array("admin".utf8)])
        XCTAssertEqual(certificate.validAfter, 1_767_225_600)
        XCTAssertEqual(certificate.validBefore, 1_798_761_600)
        XCTAssertEqual(certificate.blob, try blob(userCertificate))
        XCTAssertEqual(certificate.line(comment: nil), certificate.typeName + " " + userCertificate)
        XCTAssertEqual(certificate.line(comment: "laptop"), certificate.typeName + " " + userCertificate + " laptop")
    }

    func testAHostCertificate_andAnUnboundedOne_readAsSuch() throws {
        let host = try parse(try blob(hostCertificate))
        XCTAssertEqual(host.kind, .host)
        XCTAssertEqual(host.principals, [Array("host.example.org".utf8)])
        XCTAssertEqual(host.publicKey, publicKey)
        let unbounded = try parse(try blob(unboundedCertificate))
        XCTAssertEqual(unbounded.kind, .user)
        XCTAssertEqual(unbounded.principals, [], "no -n: valid for any user")
        XCTAssertEqual(unbounded.validAfter, 0)
        XCTAssertEqual(unbounded.validBefore, UInt64.max)
    }

    /// A certificate of an ECDSA P-256 key reads as one of a `p256` key: its type, and the
    /// point after the curve's name.
    func testAnECDSAP256Certificate_certifiesItsPoint() throws {
        let certificate = try parse(try blob(ecdsaCertificate))
        XCTAssertEqual(certificate.algorithm, .p256)
        XCTAssertEqual(certificate.typeName, "ecdsa-sha2-nistp256-cert-v01@openssh.com")
        XCTAssertEqual(certificate.publicKey.count, 65)
        XCTAssertEqual(certificate.publicKey.first, 0x04)
        XCTAssertEqual(SSHAgentOffer.key(ofBlob: try blob(ecdsaCertificate)), certificate.key)
    }

    /// Every prefix of a certificate is refused, and so is any byte after its signature.
    func testEveryTruncation_andATrailingByte_areRefused() throws {
        let whole = try blob(userCertificate)
        for length in 0..<whole.count {
            XCTAssertThrowsError(try parse(Array(whole.prefix(length))), "a certificate cut at \(length) bytes")
        }
        XCTAssertThrowsError(try parse(whole + [0]))
    }

    func testOtherKeyTypes_otherKinds_andOversizedBlobs_areRefused() throws {
        XCTAssertThrowsError(try parse(try blob(p384Certificate)), "an ECDSA P-384 key's certificate")
        // The plain key, not a certificate.
        let keyBlob = SSHKey(algorithm: .ed25519, publicKey: publicKey).blob
        XCTAssertThrowsError(try parse(keyBlob))
        // A kind that is neither user (1) nor host (2): the type field sits after the
        // type name, the nonce, the key and the serial.
        var whole = try blob(userCertificate)
        let nonceLength = Int(whole[39]) | Int(whole[38]) << 8
        let kindOffset = 4 + 32 + 4 + nonceLength + 4 + 32 + 8 + 3
        XCTAssertEqual(whole[kindOffset], 1, "the kind of a user certificate")
        whole[kindOffset] = 3
        XCTAssertThrowsError(try parse(whole))
        // Larger than any certificate PinVault keeps.
        XCTAssertThrowsError(try parse(Array(repeating: 0, count: SSHCertificate.maxBytes + 1)))
    }
}
