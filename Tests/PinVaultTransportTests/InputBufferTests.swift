import Glibc
import PinVaultDoor
import PinVaultProtocol
import XCTest

@testable import PinVaultTransport

final class InputBufferTests: XCTestCase {
    private func pipe() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(Glibc.pipe(&fds), 0)
        for fd in fds {
            XCTAssertEqual(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0)
        }
        return (fds[0], fds[1])
    }

    private func write(_ bytes: [UInt8], to fd: Int32) {
        XCTAssertEqual(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }, bytes.count)
    }

    func testFrames_areFoundUpToTheirNul_andConsumedOneAtATime() throws {
        let (r, w) = pipe()
        defer { close(r); close(w) }
        var buffer = try InputBuffer(limit: 1024)
        write(Array("{\"a\":1}\0{\"b\":2}\0{\"c\"".utf8), to: w)
        XCTAssertEqual(buffer.read(from: r), .received(20))
        XCTAssertEqual(buffer.next(), .frame(length: 7))
        XCTAssertEqual(buffer.withFrame(0..<7) { String(decoding: $0, as: UTF8.self) }, "{\"a\":1}")
        buffer.consumeFrame()
        XCTAssertEqual(buffer.next(), .frame(length: 7))
        XCTAssertEqual(buffer.withFrame(0..<7) { String(decoding: $0, as: UTF8.self) }, "{\"b\":2}")
        buffer.consumeFrame()
        XCTAssertEqual(buffer.next(), .needMore, "a partial frame is not a frame")
        XCTAssertEqual(buffer.count, 4, "the partial frame stays")

        write(Array("}\0".utf8), to: w)
        XCTAssertEqual(buffer.read(from: r), .received(2))
        XCTAssertEqual(buffer.next(), .frame(length: 5), "a frame split across reads is found whole")
    }

    func testBuffer_growsUpToItsLimitThenReportsFull_andTooLargeWithoutANul() throws {
        let (r, w) = pipe()
        defer { close(r); close(w) }
        var buffer = try InputBuffer(limit: 10_000)
        write([UInt8](repeating: 0x41, count: 12_000), to: w)
        var total = 0
        while case .received(let n) = buffer.read(from: r) { total += n }
        XCTAssertEqual(total, 10_000)
        XCTAssertTrue(buffer.isFull)
        XCTAssertEqual(buffer.read(from: r), .full)
        XCTAssertEqual(buffer.next(), .tooLarge)
    }

    /// A large message locks a large buffer only while it is there: once consumed, the
    /// buffer is back to its first page (what follows it kept), so that an idle
    /// connection never holds what one message once needed (SECURITY.md, "A user with
    /// many uids").
    func testABufferGrownForALargeMessage_shrinksBackOnceItIsConsumed_keepingWhatFollows() throws {
        let (r, w) = pipe()
        defer { close(r); close(w) }
        var buffer = try InputBuffer(limit: 65_536)
        XCTAssertEqual(buffer.grownBytes, 0)
        write([UInt8](repeating: 0x41, count: 40_000) + [0] + Array("{\"n\"".utf8), to: w)
        var total = 0
        while case .received(let n) = buffer.read(from: r) { total += n }
        XCTAssertEqual(total, 40_005)
        let grown = buffer.grownBytes
        XCTAssertGreaterThan(grown, 40_000 - 4096)
        XCTAssertEqual(buffer.next(), .frame(length: 40_000))
        let released = buffer.consumeFrame()
        XCTAssertEqual(released, grown, "the large allocation was not given back")
        XCTAssertEqual(buffer.grownBytes, 0)
        XCTAssertEqual(buffer.withFrame(0..<4) { String(decoding: $0, as: UTF8.self) }, "{\"n\"", "what followed the frame was lost")
        write(Array("}\0".utf8), to: w)
        XCTAssertEqual(buffer.read(from: r), .received(2))
        XCTAssertEqual(buffer.next(), .frame(length: 5))
    }

    /// Growing locks more memory, which the event loop grants or refuses (its share of
    /// the locked input memory); refused, the buffer stays as it is.
    func testAGrowthTheLoopRefuses_isNoRoom_andTheBufferStaysAsItWas() throws {
        let (r, w) = pipe()
        defer { close(r); close(w) }
        var buffer = try InputBuffer(limit: 65_536)
        write([UInt8](repeating: 0x41, count: 10_000), to: w)
        let page = 4096 - 16
        var asked: [Int] = []
        var results: [InputBuffer.ReadResult] = []
        for _ in 0..<3 {
            results.append(buffer.read(from: r) { bytes in
                asked.append(bytes)
                return asked.count < 2
            })
        }
        XCTAssertEqual(results, [.received(page), .received(page), .noRoom])
        XCTAssertEqual(asked, [page, 2 * page], "each growth asks for what it adds")
        XCTAssertEqual(buffer.grownBytes, page, "only the granted growth was made")
        XCTAssertEqual(buffer.count, 2 * page)
    }

    func testTrickledFrame_isFoundWhenItsNulArrives() throws {
        let (r, w) = pipe()
        defer { close(r); close(w) }
        var buffer = try InputBuffer(limit: 64)
        for byte in Array("{}".utf8) {
            write([byte], to: w)
            XCTAssertEqual(buffer.read(from: r), .received(1))
            XCTAssertEqual(buffer.next(), .needMore)
        }
        write([0], to: w)
        XCTAssertEqual(buffer.read(from: r), .received(1))
        XCTAssertEqual(buffer.next(), .frame(length: 2))
    }

    func testRead_reportsEndOfStream() throws {
        let (r, w) = pipe()
        defer { close(r) }
        close(w)
        var buffer = try InputBuffer(limit: 64)
        XCTAssertEqual(buffer.read(from: r), .endOfStream)
    }
}

/// Varlink's framing, as the Varlink door gives it to the transport: a NUL after each
/// message, over the protocol's own `VarlinkFrameReader`.
struct NULFraming: Framing {
    var reader: VarlinkFrameReader

    var maxMessageBytes: Int { reader.maxMessageBytes }

    mutating func next(in received: UnsafeRawBufferPointer) -> FrameEvent {
        switch reader.next(in: received) {
        case .needMore: .needMore
        case .frame(let range): .frame(range)
        case .tooLarge: .violation("too large")
        }
    }

    mutating func compact(_ buffer: UnsafeMutableRawBufferPointer, filled: Int) -> Int {
        reader.compact(buffer, filled: filled)
    }
}

extension InputBuffer {
    /// A buffer for NUL-framed messages of at most `limit` bytes.
    init(limit: Int) throws {
        try self.init(framing: NULFraming(reader: VarlinkFrameReader(maxMessageBytes: limit)))
    }

    enum Next: Equatable {
        case frame(length: Int)
        case needMore
        case tooLarge
    }

    /// `nextFrame()` for assertions: a frame at the start of the buffer, by its length.
    mutating func next() -> Next {
        switch nextFrame() {
        case .frame(let range):
            XCTAssertEqual(range.lowerBound, 0, "frames are taken from the start of the buffer")
            return .frame(length: range.count)
        case .needMore: return .needMore
        case .violation: return .tooLarge
        }
    }
}
