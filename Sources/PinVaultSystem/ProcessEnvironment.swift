import Glibc

/// The process's environment variables.
public enum ProcessEnvironment {
    /// The value of `name`, nil when it is not set.
    public static func value(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }
}
