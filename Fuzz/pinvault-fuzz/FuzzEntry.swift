import Glibc

/// libFuzzer's entry point: one input per call. Always answers 0 (keep the input).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: data == nil ? 0 : size)
    switch FuzzTarget.current {
    case .vault: FuzzHarness.run(input)
    case .transport: TransportHarness.run(input)
    case .sshData: SignedDataCheck.run(input)
    case .cbor: CBORCheck.run(input)
    case .ctaphid: CTAPHIDCheck.run(input)
    case .ctap: CTAPCommandCheck.run(input)
    }
    return 0
}

/// Which harness the inputs go to: `PINVAULT_FUZZ_TARGET=transport` for the event
/// loop over socketpairs (`TransportHarness`, corpus `Fuzz/corpus-transport`);
/// `ssh-data` for the parsers of what an ssh key signs (`SignedDataCheck`, corpus
/// `Fuzz/corpus-ssh-data`); `cbor` for CTAP's CBOR decoder and canonical encoder
/// (`CBORCheck`, corpus `Fuzz/corpus-cbor`); `ctaphid` for the CTAPHID device
/// (`CTAPHIDCheck`, corpus `Fuzz/corpus-ctaphid`); `ctap` for CTAP2 commands through the
/// security key's dispatch over a real engine (`CTAPCommandCheck`, corpus `Fuzz/corpus-ctap`);
/// unset or `vault` for frames straight into the door
/// (`FuzzHarness`, corpus `Fuzz/corpus`).
enum FuzzTarget {
    case vault
    case transport
    case sshData
    case cbor
    case ctaphid
    case ctap

    static let current: FuzzTarget = {
        guard let name = getenv("PINVAULT_FUZZ_TARGET").map({ String(cString: $0) }) else { return .vault }
        switch name {
        case "vault", "": return .vault
        case "transport": return .transport
        case "ssh-data": return .sshData
        case "cbor": return .cbor
        case "ctaphid": return .ctaphid
        case "ctap": return .ctap
        default: FuzzHarness.trap("PINVAULT_FUZZ_TARGET is vault, transport, ssh-data, cbor, ctaphid or ctap, not \(name)")
        }
    }()
}
