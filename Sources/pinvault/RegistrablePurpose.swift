import ArgumentParser
import PinVaultClient

/// `register --purpose`: the purposes a new credential may have (never `legacy`).
enum RegistrablePurpose: String, CaseIterable, ExpressibleByArgument {
    case authenticate, ssh, login, webauthn

    var purpose: Credential.Purpose {
        switch self {
        case .authenticate: .authenticate
        case .ssh: .ssh
        case .login: .login
        case .webauthn: .webauthn
        }
    }
}
