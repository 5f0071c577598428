import PinVaultCBOR

/// The `cbor` target: any bytes through CTAP's CBOR decoder. Besides never trapping (no
/// depth, length or count makes it recurse or allocate past its limits), what it accepts
/// must survive the canonical encoder: the encoding decodes to the same value, and
/// encoding that again gives the same bytes (the canonical form is a fixed point). When
/// the input was already canonical, the encoding is the input.
enum CBORCheck {
    static func run(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(bytes)
        } catch {
            guard [0x03, 0x11, 0x12, 0x14].contains(error.ctapStatus) else { FuzzHarness.trap("an unknown CBOR status") }
            return
        }
        let encoded = CBOREncoder.encode(value)
        guard let again = try? CBORDecoder.decode(encoded), again == value else {
            FuzzHarness.trap("an accepted item whose canonical encoding does not decode to it")
        }
        guard CBOREncoder.encode(again) == encoded else { FuzzHarness.trap("a canonical encoding that is not a fixed point") }
        guard encoded.count <= bytes.count else { FuzzHarness.trap("a canonical encoding longer than its input") }
    }
}
