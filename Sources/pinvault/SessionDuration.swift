import ArgumentParser

/// A session's length on the command line: `90s`, `15m`, `1h`, `1h30m`, or bare
/// seconds (`900`).
struct SessionDuration: ExpressibleByArgument, Equatable {
    let seconds: Int64

    init(seconds: Int64) {
        self.seconds = seconds
    }

    init?(argument: String) {
        var total: Int64 = 0
        var number: Int64?
        var sawUnit = false
        for character in argument {
            if let digit = character.wholeNumberValue, character.isASCII {
                let (shifted, overflow) = (number ?? 0).multipliedReportingOverflow(by: 10)
                guard !overflow, shifted <= Int64.max - Int64(digit) else { return nil }
                number = shifted + Int64(digit)
                continue
            }
            let unit: Int64
            switch character {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            case "d": unit = 86400
            default: return nil
            }
            guard let value = number else { return nil }
            let (part, overflow) = value.multipliedReportingOverflow(by: unit)
            guard !overflow, part <= Int64.max - total else { return nil }
            total += part
            number = nil
            sawUnit = true
        }
        if let number {
            guard !sawUnit else { return nil }  // "1h30" is ambiguous
            total = number
        } else if !sawUnit {
            return nil
        }
        guard total > 0 else { return nil }
        seconds = total
    }

    var defaultValueDescription: String { "\(seconds)s" }
}
