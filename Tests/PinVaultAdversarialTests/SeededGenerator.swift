import Foundation

/// A reproducible random number generator (SplitMix64), for the tests that print their
/// seed: the same seed picks the same samples and the same schedules.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// The seed `variable` names in the environment (decimal), or `fallback`.
    static func seed(from variable: String, fallback: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment[variable].flatMap { UInt64($0) } ?? fallback
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
