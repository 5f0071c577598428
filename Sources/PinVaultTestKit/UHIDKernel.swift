import Foundation
import Glibc

/// The kernel's side of /dev/uhid, played by a test for pinvault-uhid
/// (`--test-uhid-socket`): a `SOCK_SEQPACKET` socket where each connection is one device,
/// each message one `struct uhid_event` (linux/uhid.h), as each open of /dev/uhid is one
/// device and each read or write one event.
public final class UHIDKernel {
    /// linux/uhid.h's event types and report type, as the kernel numbers them.
    public enum Event {
        public static let output: UInt32 = 6
        public static let getReport: UInt32 = 9
        public static let getReportReply: UInt32 = 10
        public static let create2: UInt32 = 11
        public static let input2: UInt32 = 12
        public static let outputReport: UInt8 = 1
        /// sizeof(struct uhid_event): the type, then the largest request (UHID_CREATE2's).
        public static let size = 4 + 128 + 64 + 64 + 2 + 2 + 4 * 4 + 4096
        /// Offsets in UHID_CREATE2: rd_size, bus, rd_data.
        public static let descriptorSizeOffset = 4 + 128 + 64 + 64
        public static let busOffset = descriptorSizeOffset + 2
        public static let descriptorOffset = descriptorSizeOffset + 2 + 2 + 4 * 4
    }

    /// The FIDO report descriptor a security key presents: usage page 0xF1D0, usage 0x01,
    /// 64-byte input (usage 0x20) and output (usage 0x21) reports, no report ids
    /// (the HID usage tables' FIDO Alliance page, written out here independently).
    public static let fidoDescriptor: [UInt8] = [
        0x06, 0xD0, 0xF1, 0x09, 0x01, 0xA1, 0x01,
        0x09, 0x20, 0x15, 0x00, 0x26, 0xFF, 0x00, 0x75, 0x08, 0x95, 0x40, 0x81, 0x02,
        0x09, 0x21, 0x15, 0x00, 0x26, 0xFF, 0x00, 0x75, 0x08, 0x95, 0x40, 0x91, 0x02,
        0xC0,
    ]

    public let path: String
    private let listener: Int32

    public init(path: String) throws {
        self.path = path
        listener = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw TestKitError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw TestKitError("path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 8) == 0 else { throw TestKitError("bind \(path): errno \(errno)") }
    }

    deinit {
        close(listener)
        unlink(path)
    }

    /// The next device pinvault-uhid opens, once it has created it: the first event must
    /// be UHID_CREATE2, whose descriptor is returned with the device.
    public func nextDevice(timeout: Double = 30) throws -> (device: Device, create: [UInt8]) {
        guard Self.readable(listener, timeout: timeout) else { throw TestKitError("no device opened within \(timeout) s") }
        let fd = accept(listener, nil, nil)
        guard fd >= 0, fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else { throw TestKitError("accept: errno \(errno)") }
        let device = Device(fd: fd)
        let create = try device.nextEvent()
        guard create.type == Event.create2 else { throw TestKitError("the first event is \(create.type), not UHID_CREATE2") }
        return (device, create.bytes)
    }

    /// True when another device is opened within `timeout`, which it then takes (closed).
    public func opensDevice(within timeout: Double) -> Bool {
        guard Self.readable(listener, timeout: timeout) else { return false }
        close(accept(listener, nil, nil))
        return true
    }

    public static func readable(_ fd: Int32, timeout: Double) -> Bool {
        var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return Glibc.poll(&poll, 1, Int32(timeout * 1000)) == 1
    }

    /// One virtual device as its kernel sees it: output reports written to it (as hidraw
    /// hands over a 65-byte write: report number 0, then the report), input reports read.
    public final class Device: CTAPHIDReports {
        public let fd: Int32
        /// Events other than UHID_INPUT2 read while waiting for a report.
        public private(set) var otherEvents: [UInt32] = []

        init(fd: Int32) { self.fd = fd }
        deinit { close(fd) }

        public func send(report: [UInt8]) throws {
            guard report.count == 64 else { throw TestKitError("a report is 64 bytes, not \(report.count)") }
            var event = [UInt8](repeating: 0, count: 4 + 4096 + 2 + 1)
            Self.put(Event.output, at: 0, in: &event)
            event.replaceSubrange(5..<69, with: report)
            event[4 + 4096] = 65
            event[4 + 4096 + 2] = Event.outputReport
            try write(event: event)
        }

        public func receiveReport() throws -> [UInt8] {
            while true {
                let event = try nextEvent()
                guard event.type == Event.input2 else {
                    otherEvents.append(event.type)
                    continue
                }
                let size = Int(event.bytes[4]) | Int(event.bytes[5]) << 8
                guard size == 64, event.bytes.count >= 6 + 64 else { throw TestKitError("UHID_INPUT2 of \(size) bytes") }
                return Array(event.bytes[6..<70])
            }
        }

        /// Any bytes as one event (a malformed one, say).
        public func write(event: [UInt8]) throws {
            let written = event.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written == event.count else { throw TestKitError("the device took \(written) of \(event.count) bytes: errno \(errno)") }
        }

        public func nextEvent(timeout: Double = 30) throws -> (type: UInt32, bytes: [UInt8]) {
            guard UHIDKernel.readable(fd, timeout: timeout) else { throw TestKitError("no event within \(timeout) s") }
            var buffer = [UInt8](repeating: 0, count: Event.size)
            let length = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard length >= 4 else { throw TestKitError("the device was closed (recv \(length), errno \(errno))") }
            let type = buffer.prefix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return (type, Array(buffer.prefix(length)))
        }

        /// True when pinvault-uhid closes the device (its relay ended) within `timeout`,
        /// the events before the end skipped.
        public func isClosed(within timeout: Double) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            var buffer = [UInt8](repeating: 0, count: Event.size)
            while UHIDKernel.readable(fd, timeout: max(0, deadline.timeIntervalSinceNow)) {
                if buffer.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) <= 0 { return true }
            }
            return false
        }

        public static func put(_ value: UInt32, at offset: Int, in bytes: inout [UInt8]) {
            for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(index))) }
        }
    }
}
