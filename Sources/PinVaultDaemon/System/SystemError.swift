import Glibc

/// A failed system call: the call's name and `errno`. Carries no payload data.
public struct SystemError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let code: Int32

    public init(_ operation: String, code: Int32 = errno) {
        self.operation = operation
        self.code = code
    }

    public var description: String {
        "\(operation): \(String(cString: strerror(code)))"
    }
}
