/// The CTAP 2.1 status bytes this authenticator answers (§8.2.1), one meaning each.
enum CTAPStatus: UInt8 {
    case ok = 0x00
    case invalidCommand = 0x01
    case invalidParameter = 0x02
    case invalidLength = 0x03
    case cborUnexpectedType = 0x11
    case invalidCBOR = 0x12
    case missingParameter = 0x14
    case credentialExcluded = 0x19
    case unsupportedAlgorithm = 0x26
    case operationDenied = 0x27
    case unsupportedOption = 0x2B
    case keepaliveCancel = 0x2D
    case noCredentials = 0x2E
    case notAllowed = 0x30
    case pinInvalid = 0x31
    case pinBlocked = 0x32
    case pinAuthInvalid = 0x33
    case pinAuthBlocked = 0x34
    case pinNotSet = 0x35
    case pinRequired = 0x36
    case pinPolicyViolation = 0x37
    case invalidSubcommand = 0x3E
    case other = 0x7F
}

/// A request refused with a status.
struct CTAPFailure: Error {
    let status: CTAPStatus
    init(_ status: CTAPStatus) { self.status = status }
}
