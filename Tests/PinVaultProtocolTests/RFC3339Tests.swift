@testable import PinVaultProtocol
import XCTest

final class RFC3339Tests: XCTestCase {
    private let known: [(Int64, String)] = [
        (0, "1970-01-01T00:00:00Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (1_709_164_800, "2024-02-29T00:00:00Z"),
        (1_709_251_199, "2024-02-29T23:59:59Z"),
        (4_107_542_399, "2100-02-28T23:59:59Z"),
        (4_107_542_400, "2100-03-01T00:00:00Z"),
        (2_147_483_647, "2038-01-19T03:14:07Z"),
        (2_147_483_648, "2038-01-19T03:14:08Z"),
        (4_294_967_296, "2106-02-07T06:28:16Z"),
        (253_402_300_799, "9999-12-31T23:59:59Z"),
        (-62_167_219_200, "0000-01-01T00:00:00Z"),
        (-2_208_988_800, "1900-01-01T00:00:00Z"),
    ]

    func testString_ofKnownInstants_matches() {
        for (seconds, text) in known {
            XCTAssertEqual(RFC3339.string(fromUnixSeconds: seconds), text, "\(seconds)")
        }
    }

    func testUnixSeconds_ofKnownTimestamps_matches() {
        for (seconds, text) in known {
            XCTAssertEqual(RFC3339.unixSeconds(from: text), seconds, text)
        }
    }

    func testRoundTrip_acrossFourHundredYearsOfDays() {
        var seconds: Int64 = -2_208_988_800  // 1900
        while seconds < 10_413_792_000 {  // 2300
            let text = RFC3339.string(fromUnixSeconds: seconds)
            XCTAssertEqual(RFC3339.unixSeconds(from: text), seconds, text)
            seconds += 86_400 * 7 + 3_661
        }
    }

    func testUnixSeconds_rejectsOtherFormsAndImpossibleDates() {
        let rejected = [
            "", "2024-02-29", "2024-02-29T00:00:00", "2024-02-29T00:00:00z", "2024-02-29t00:00:00Z",
            "2024-02-29 00:00:00Z", "2024-02-29T00:00:00+00:00", "2024-02-29T00:00:00.5Z", "2023-02-29T00:00:00Z",
            "2100-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-00-01T00:00:00Z", "2024-04-31T00:00:00Z",
            "2024-01-00T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:60:00Z", "2016-12-31T23:59:60Z",
            "+024-01-01T00:00:00Z", "2024-01-01T00:00:0aZ", "２024-01-01T00:00:00Z",
        ]
        for text in rejected {
            XCTAssertNil(RFC3339.unixSeconds(from: text), text)
        }
    }

    func testString_clampsOutOfRangeInstants() {
        XCTAssertEqual(RFC3339.string(fromUnixSeconds: .max), "9999-12-31T23:59:59Z")
        XCTAssertEqual(RFC3339.string(fromUnixSeconds: .min), "0000-01-01T00:00:00Z")
    }
}
