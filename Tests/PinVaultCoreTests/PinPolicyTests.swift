import PinVaultCore
import PinVaultCrypto
import XCTest

final class PinPolicyTests: XCTestCase {
    private let policy = PinPolicy()

    private func violations(
        _ pin: String, current: String? = nil, policy: PinPolicy = PinPolicy()
    ) throws -> [PinViolation] {
        try policy.violations(of: secret(pin), current: current.map { try secret($0) })
    }

    func testDefaults_matchTheDesign() {
        XCTAssertEqual(policy.minLength, 6)
        XCTAssertEqual(policy.maxLength, 64)
        XCTAssertTrue(policy.digitsOnly)
        XCTAssertEqual(policy.maxIdenticalDigits, 3)
        XCTAssertFalse(policy.allowSequences)
        XCTAssertEqual(policy.denyList.count, 0)
    }

    func testViolationNames_areTheInterfaceNamesInReportOrder() {
        XCTAssertEqual(
            PinViolation.allCases.map(\.rawValue),
            ["empty", "notDigits", "tooShort", "tooLong", "tooManyIdenticalDigits",
             "sequential", "denyListed", "sameAsCurrent"]
        )
    }

    func testAGoodPin_hasNoViolations() throws {
        XCTAssertEqual(try violations("385172"), [])
    }

    func testEmptyPin_isOnlyEmpty() throws {
        XCTAssertEqual(try violations(""), [.empty])
        XCTAssertEqual(try violations("", current: ""), [.empty])
    }

    func testLetters_whenDigitsOnly_areNotDigits() throws {
        XCTAssertEqual(try violations("38a172"), [.notDigits])
        XCTAssertEqual(try violations("3851７2"), [.notDigits], "a full-width digit is not an ASCII digit")
    }

    func testLetters_whenDigitsNotRequired_areAllowed() throws {
        let open = PinPolicy(digitsOnly: false)
        XCTAssertEqual(try violations("Tr0ub4dor", policy: open), [])
        XCTAssertEqual(try violations("ab12cd", policy: open), [])
    }

    func testInvalidUTF8_isNotDigits_underAnyPolicy() throws {
        let pin = try secret(bytes: [0x33, 0x38, 0xFF, 0x31, 0x37, 0x32])
        XCTAssertEqual(PinPolicy().violations(of: pin), [.notDigits])
        XCTAssertEqual(PinPolicy(digitsOnly: false).violations(of: pin), [.notDigits])
    }

    func testLength_countsUnicodeScalars() throws {
        let open = PinPolicy(minLength: 3, digitsOnly: false)
        XCTAssertEqual(try violations("éßø", policy: open), [], "3 scalars in 6 bytes")
        XCTAssertEqual(try violations("éß", policy: open), [.tooShort])
    }

    func testShortPin_isTooShort_andExactlyMinLengthIsNot() throws {
        XCTAssertEqual(try violations("38517"), [.tooShort])
        XCTAssertEqual(try violations("385172"), [])
    }

    func testLongPin_isTooLong_andExactlyMaxLengthIsNot() throws {
        let short = PinPolicy(maxLength: 8)
        XCTAssertEqual(try violations("385172946", policy: short), [.tooLong])
        XCTAssertEqual(try violations("38517294", policy: short), [])
    }

    func testHugeInput_isTooLongWithoutBeingRead() throws {
        let short = PinPolicy(maxLength: 8)
        XCTAssertEqual(
            try violations(String(repeating: "1", count: 32), policy: short),
            [.tooLong, .tooManyIdenticalDigits],
            "32 bytes may still be 8 scalars: analysed in full"
        )
        XCTAssertEqual(try violations(String(repeating: "1", count: 33), policy: short), [.tooLong])
        XCTAssertEqual(
            try violations(String(repeating: "x", count: 1 << 20)), [.tooLong],
            "a megabyte is refused at once"
        )
    }

    func testOneCharacterTooOften_isTooManyIdenticalDigits_evenApart() throws {
        XCTAssertEqual(try violations("111123"), [.tooManyIdenticalDigits])
        XCTAssertEqual(try violations("1213141"), [.tooManyIdenticalDigits])
        XCTAssertEqual(try violations("éxéyéé", policy: PinPolicy(digitsOnly: false)), [.tooManyIdenticalDigits])
    }

    func testExactlyMaxIdenticalDigits_isAllowed() throws {
        XCTAssertEqual(try violations("111238"), [])
        XCTAssertEqual(try violations("121318"), [])
        XCTAssertEqual(try violations("118811", policy: PinPolicy(maxIdenticalDigits: 4)), [])
    }

    func testAscendingAndDescendingRuns_areSequential() throws {
        for run in ["123456", "987654", "0123456789", "456789", "9876543210"] {
            XCTAssertEqual(try violations(run), [.sequential], run)
        }
    }

    func testRunsThatWrapAroundNine_areSequential() throws {
        XCTAssertEqual(try violations("890123"), [.sequential])
        XCTAssertEqual(try violations("210987"), [.sequential])
    }

    func testNearRuns_areNotSequential() throws {
        for pin in ["135790", "123455", "123465", "124567", "987656", "135791"] {
            XCTAssertFalse(try violations(pin).contains(.sequential), pin)
        }
    }

    func testRuns_whenSequencesAllowed_pass() throws {
        XCTAssertEqual(try violations("123456", policy: PinPolicy(allowSequences: true)), [])
    }

    func testAPinOnTheDenyList_isDenyListed() throws {
        let listed = PinPolicy(denyList: DenyList(entries: ["385172"]))
        XCTAssertEqual(try violations("385172", policy: listed), [.denyListed])
        XCTAssertEqual(try violations("385173", policy: listed), [])
    }

    func testANewPinEqualToTheCurrent_isSameAsCurrent() throws {
        XCTAssertEqual(try violations("385172", current: "385172"), [.sameAsCurrent])
        XCTAssertEqual(try violations("385172", current: "385173"), [])
        XCTAssertEqual(try violations("385172", current: "3851720"), [])
    }

    func testEveryViolation_isReportedAtOnce_inOrder() throws {
        let strict = PinPolicy(denyList: DenyList(entries: ["aaaa"]))
        XCTAssertEqual(
            try violations("aaaa", current: "aaaa", policy: strict),
            [.notDigits, .tooShort, .tooManyIdenticalDigits, .denyListed, .sameAsCurrent]
        )
        let run = "0123456789012"
        let tight = PinPolicy(maxLength: 10, maxIdenticalDigits: 1, denyList: DenyList(entries: [run]))
        XCTAssertEqual(
            try violations(run, current: run, policy: tight),
            [.tooLong, .tooManyIdenticalDigits, .sequential, .denyListed, .sameAsCurrent]
        )
        XCTAssertEqual(try violations("123"), [.tooShort, .sequential])
    }

    func testCommonPins_areRefused_withTheShippedList() throws {
        let list = try DenyList(testFile: repositoryRoot + "/config/deny-list.txt")
        let shipped = PinPolicy(minLength: 4, denyList: list)
        for pin in ["1212", "2580", "1004", "696969", "159753", "8675309", "20202020", "31415926"] {
            XCTAssertTrue(try violations(pin, policy: shipped).contains(.denyListed), pin)
        }
        XCTAssertEqual(try violations("385172", policy: shipped), [])
    }
}
