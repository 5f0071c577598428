import Glibc
import PinVaultSystem
import XCTest

final class SyscallTests: XCTestCase {
    func testRun_returnsTheResult() throws {
        XCTAssertEqual(try Syscall.run("getpid") { getpid() }, getpid())
    }
}
