import Foundation
import Glibc
import PinVaultTestKit
import XCTest

/// A small file system mounted over a test daemon's state directory (root only): a
/// tmpfs of a fixed size, or an ext4 image on a loop device that the kernel turns
/// read-only on an error (`errors=remount-ro`), as it does when a disk fails.
final class ScratchFileSystem {
    /// The mount point.
    let path: String
    /// The ext4 image, for an ext4 file system.
    private let image: String?
    private var mounted = false

    /// Skips `testCase` loudly when not root; under CI (`CI=true`, which runs as root)
    /// a missing root fails it instead, so that the suite cannot pass there unrun.
    static func requireRoot(_ testCase: XCTestCase, _ what: String) throws {
        guard geteuid() != 0 else { return }
        try RootOnlySuites.skip(testCase, "\(what) needs root to mount a file system") { XCTSkip($0) }
    }

    /// A tmpfs of `kibibytes` at `path` (made 0700 if missing).
    init(tmpfsAt path: String, kibibytes: Int) throws {
        self.path = path
        image = nil
        try Self.makeDirectory(path)
        try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kibibytes)k,mode=0700", "tmpfs", path])
        mounted = true
    }

    /// An ext4 file system of `mebibytes` in `image`, on a loop device at `path`,
    /// mounted `errors=remount-ro`; its root is made 0700 for the daemon.
    init(ext4At path: String, image: String, mebibytes: Int) throws {
        self.path = path
        self.image = image
        try Self.makeDirectory(path)
        guard FileManager.default.createFile(atPath: image, contents: nil), truncate(image, off_t(mebibytes) << 20) == 0 else {
            throw TestKitError("cannot make \(image): errno \(errno)")
        }
        try Self.run("/sbin/mkfs.ext4", ["-q", "-F", image])
        try mount()
    }

    deinit { unmount() }

    /// Mounts the ext4 image again (after `unmount` and `repair`).
    func mount() throws {
        guard let image else { throw TestKitError("not an ext4 file system") }
        try Self.run("/bin/mount", ["-o", "loop,errors=remount-ro", image, path])
        mounted = true
        guard chmod(path, 0o700) == 0 else { throw TestKitError("chmod \(path): errno \(errno)") }
    }

    /// `mount -o remount,OPTIONS`.
    func remount(_ options: String) throws {
        try Self.run("/bin/mount", ["-o", "remount,\(options)", path])
    }

    /// Unmounts (lazily when still busy); the loop device goes with it.
    func unmount() {
        guard mounted else { return }
        if (try? Self.run("/bin/umount", [path])) == nil {
            _ = try? Self.run("/bin/umount", ["-l", path])
        }
        mounted = false
    }

    /// `e2fsck -fy` on the unmounted image: what an admin does after the error.
    func repair() throws {
        guard let image else { throw TestKitError("not an ext4 file system") }
        let result = try Subprocess.run("/sbin/e2fsck", ["-fy", image])
        // 0: clean, 1: errors corrected.
        guard result.status == 0 || result.status == 1 else { throw TestKitError("e2fsck failed:\n\(result)") }
    }

    /// Records an ext4 error, as a failing disk does: with `errors=remount-ro` the
    /// kernel makes the file system read-only at once, files open for writing or not.
    func failWithError() throws {
        let device = try mountSource()
        let trigger = "/sys/fs/ext4/\(URL(fileURLWithPath: device).lastPathComponent)/trigger_fs_error"
        guard FileManager.default.fileExists(atPath: trigger) else { throw TestKitError("this kernel has no \(trigger)") }
        try "PinVault test: simulated disk error".write(toFile: trigger, atomically: false, encoding: .utf8)
    }

    /// The mount options, as /proc/self/mounts gives them.
    func options() throws -> [String] {
        let mounts = try String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)
        guard let line = mounts.split(separator: "\n").last(where: { $0.split(separator: " ").dropFirst().first.map(String.init) == path }) else {
            throw TestKitError("\(path) is not mounted")
        }
        return line.split(separator: " ")[3].split(separator: ",").map(String.init)
    }

    /// Writes a file until the file system is full; returns its path.
    func fill() throws -> String {
        let filler = path + "/filler"
        let fd = open(filler, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw TestKitError("create \(filler): errno \(errno)") }
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0x5A, count: 4096)
        while true {
            let written = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == ENOSPC { return filler }
            guard written > 0 else { throw TestKitError("write \(filler): errno \(errno)") }
        }
    }

    private func mountSource() throws -> String {
        let mounts = try String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)
        guard let line = mounts.split(separator: "\n").last(where: { $0.split(separator: " ").dropFirst().first.map(String.init) == path }) else {
            throw TestKitError("\(path) is not mounted")
        }
        return String(line.split(separator: " ")[0])
    }

    private static func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o700) != 0 && errno != EEXIST { throw TestKitError("mkdir \(path): errno \(errno)") }
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let result = try Subprocess.run(tool, arguments)
        guard result.status == 0 else { throw TestKitError("\(tool) \(arguments.joined(separator: " ")) failed:\n\(result)") }
    }
}
