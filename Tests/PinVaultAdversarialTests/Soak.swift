import Foundation

/// Short runs for `make test`, long ones for `make soak` (`PINVAULT_SOAK=1`).
enum Soak {
    /// True under `make soak`.
    static let isEnabled = ProcessInfo.processInfo.environment["PINVAULT_SOAK"] == "1"

    /// `short` in a normal run, `long` in a soak.
    static func scale<T>(short: T, long: T) -> T { isEnabled ? long : short }
}
