/// PINs that no other memory of a process can hold by chance: 12 random digits, no
/// digit more than three times (so the test policy accepts them; a run of 12 with
/// step 1 cannot exist). One in 10^12 per place they are compared with.
public enum DistinctivePin {
    /// A fresh PIN, different from each of `avoiding` in every 6-digit window, so that
    /// a match found in memory tells which PIN it was.
    public static func make(avoiding others: [String] = []) -> String {
        var generator = SystemRandomNumberGenerator()
        while true {
            let digits = (0..<12).map { _ in UInt8.random(in: 0...9, using: &generator) }
            var counts = [Int](repeating: 0, count: 10)
            for digit in digits { counts[Int(digit)] += 1 }
            guard counts.allSatisfy({ $0 <= 3 }) else { continue }
            let pin = String(digits.map { Character(UnicodeScalar(UInt8(ascii: "0") + $0)) })
            guard !others.contains(where: { sharesWindow(pin, $0) }) else { continue }
            return pin
        }
    }

    /// `pin` as JSON's `\u00XX` escapes, the way a client may send it.
    public static func escaped(_ pin: String) -> String {
        pin.unicodeScalars.map { "\\u00" + String($0.value, radix: 16) }.joined()
    }

    private static func sharesWindow(_ a: String, _ b: String) -> Bool {
        let a = Array(a.utf8), b = Array(b.utf8)
        guard a.count >= 6, b.count >= 6 else { return false }
        let windows = Set((0...(a.count - 6)).map { a[$0..<($0 + 6)] })
        return (0...(b.count - 6)).contains { windows.contains(b[$0..<($0 + 6)]) }
    }
}
