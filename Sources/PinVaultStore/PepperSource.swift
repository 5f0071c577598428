/// Where the pepper came from, for the start-up log line.
public enum PepperSource: Equatable, Sendable {
    /// `$CREDENTIALS_DIRECTORY/pinvault.pepper` (systemd `LoadCredential=`).
    case credentials(path: String)
    /// An existing `<state>/pepper`.
    case stateFile(path: String)
    /// A new `<state>/pepper`, made on this start.
    case created(path: String)

    /// The pepper's file.
    public var path: String {
        switch self {
        case .credentials(let path), .stateFile(let path), .created(let path): path
        }
    }
}
