import Glibc

/// Reads a whole regular file of bounded size: the configuration, the deny list.
/// A wrong path (a directory, `/dev/zero`, a FIFO, a disk image) fails fast instead
/// of hanging the start or filling memory.
public enum RegularFile {
    /// Why a file could not be read; `description` is one lower-case phrase.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case cannotOpen(SystemError)
        case notRegular
        case tooLarge(limit: Int)
        case cannotRead(SystemError)

        public var description: String {
            switch self {
            case .cannotOpen(let error): "cannot open: \(String(cString: strerror(error.errno)))"
            case .notRegular: "not a regular file"
            case .tooLarge(let limit): "larger than \(limit) bytes"
            case .cannotRead(let error): "cannot read: \(String(cString: strerror(error.errno)))"
            }
        }
    }

    /// The contents of the regular file at `path`, at most `maxBytes` of them.
    /// `O_NONBLOCK` on open, so that a FIFO planted at the path cannot hang the caller.
    public static func read(path: String, maxBytes: Int) throws(Failure) -> [UInt8] {
        let fd: Int32
        do {
            fd = try Syscall.run("open") { open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK) }
        } catch {
            throw .cannotOpen(error)
        }
        defer { close(fd) }
        let status: FileStatus
        do {
            status = try FileStatus.fstat(fd)
        } catch {
            throw .cannotRead(error)
        }
        guard status.kind == .regular else { throw .notRegular }
        var contents: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            let got: Int
            do {
                got = try Syscall.run("read") { Glibc.read(fd, chunk.baseAddress, chunk.count) }
            } catch {
                throw .cannotRead(error)
            }
            if got == 0 { return contents }
            guard contents.count + got <= maxBytes else { throw .tooLarge(limit: maxBytes) }
            contents.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<got]))
        }
    }
}
