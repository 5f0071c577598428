import CPinVaultSystem
import Glibc

/// Whole-buffer reads and writes on a blocking descriptor, through `Syscall`.
public enum FileDescriptor {
    /// A pipe (read end, write end) whose ends close on exec from the moment they exist
    /// (`pipe2`), so that no process another thread spawns meanwhile inherits them.
    public static func pipeClosingOnExec() throws(SystemError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard CPinVaultSystem_pipe_closing_on_exec(&ends) == 0 else { throw SystemError.last("pipe2") }
        return (ends[0], ends[1])
    }

    /// Reads until end of file or a full `buffer`; returns the bytes read.
    public static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var total = 0
        while total < buffer.count {
            let got = try Syscall.run("read") { read(fd, base + total, buffer.count - total) }
            if got == 0 { break }
            total += got
        }
        return total
    }

    /// Writes every byte of `bytes`; a write that makes no progress is `EIO`.
    public static func writeFully(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        guard let base = bytes.baseAddress else { return }
        var total = 0
        while total < bytes.count {
            let put = try Syscall.run("write") { write(fd, base + total, bytes.count - total) }
            guard put > 0 else { throw SystemError(call: "write", errno: EIO) }
            total += put
        }
    }

    /// `fsync`s the directory at `path`, so that a new entry in it survives a power cut.
    public static func syncDirectory(_ path: String) throws(SystemError) {
        let fd = try Syscall.run("open") { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(fd) }
        try Syscall.run("fsync") { fsync(fd) }
    }
}
