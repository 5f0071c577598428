import Glibc

/// A benchmark could not run as planned; the message says which step failed and why.
struct BenchError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }

    /// The error of a failed system call, with `errno` spelled out.
    static func system(_ call: String, _ code: Int32 = errno) -> BenchError {
        BenchError("\(call): \(String(cString: strerror(code))) (errno \(code))")
    }
}
