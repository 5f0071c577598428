import Glibc
import PinVaultDoor
import PinVaultEmbedded
import PinVaultProtocol
import PinVaultTransport

/// One fuzz input, end to end: the bytes are a stream from one peer, split into
/// frames by `VarlinkFrameReader`, each frame answered by pinvaultd's dispatcher and
/// service (`InProcessVault`: real store, weak KDF), and each reply checked.
///
/// A frame the daemon would close the connection for (not a Varlink call) ends that
/// connection, and the frames after it come on a new one from the next peer of
/// `peers`: a user, an admin, another user. So one input can register as a user and
/// then unblock or wipe as an admin. The virtual clock moves one second per frame,
/// so throttling and unregistration expire within an input's reach. What follows
/// `AgentCheck.marker` goes to the ssh-agent door as user 1000's byte stream.
///
/// Every check traps (libFuzzer reports a trap as a crash): a finding is a trap,
/// a sanitizer report, a leak, or a time-out.
enum FuzzHarness {
    /// Longest message, as `server.max_message_bytes` defaults.
    static let maxMessageBytes = ProtocolLimits.defaultMaxMessageBytes

    static let peers = [
        Peer(pid: 4242, uid: 1000, gid: 1000, groups: [1000], isAdmin: false),
        Peer(pid: 4243, uid: 0, gid: 0, groups: [], isAdmin: true),
        Peer(pid: 4244, uid: 1001, gid: 1001, groups: [], isAdmin: false),
    ]

    /// The vault every input talks to, in a private temporary directory: on tmpfs when
    /// there is one, since the store syncs every write (`synchronous=FULL`).
    nonisolated(unsafe) static var vault: InProcessVault?

    /// Where the vault's files are, once made.
    nonisolated(unsafe) static var stateDirectory: String?

    /// Makes the vault (once), and has its directory removed at exit. Traps when it
    /// cannot: there is nothing to fuzz then.
    static func vaultOrTrap(maxMessageBytes: Int? = nil) -> InProcessVault {
        if let vault { return vault }
        atexit { FuzzHarness.removeState() }
        let parent = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        var template = Array("\(parent)/pinvault-fuzz-XXXXXX".utf8CString)
        guard let directory = mkdtemp(&template) else { trap("mkdtemp failed") }
        do {
            stateDirectory = String(cString: directory)
            let made = try InProcessVault(stateDirectory: String(cString: directory), maxMessageBytes: maxMessageBytes)
            vault = made
            return made
        } catch {
            trap("cannot open the in-process vault: \(error)")
        }
    }

    /// Set `PINVAULT_FUZZ_TRACE` to print each reply (to check what a seed reaches).
    static let tracing = getenv("PINVAULT_FUZZ_TRACE") != nil

    /// Runs one input.
    static func run(_ whole: UnsafeRawBufferPointer) {
        let vault = vaultOrTrap()
        let (input, agent) = AgentCheck.split(whole)
        defer {
            if let agent { AgentCheck.run(agent, vault: vault, peer: peers[0]) }
        }
        // A small limit too, so that over-long messages and compaction at the edge of
        // the buffer are reached without inputs of 64 KiB.
        _ = FrameSplitCheck.frames(of: input, maxMessageBytes: 1 + input.count % 97)
        let frames = FrameSplitCheck.frames(of: input, maxMessageBytes: maxMessageBytes)
        var peer = 0
        for frame in frames {
            let bytes = UnsafeRawBufferPointer(rebasing: input[frame])
            ClientDecoding.exercise(bytes)
            // The reply is checked where the door wrote it, and zeroed once checked.
            let outcome = vault.exchange(frame: bytes, peer: peers[peer]) { outcome, reply in
                if outcome == .replied {
                    ReplyCheck.verify(reply)
                    if tracing { print("uid \(peers[peer].uid): \(String(decoding: reply, as: UTF8.self))") }
                }
                return outcome
            }
            vault.advanceClock(seconds: 1)
            if outcome == .closed {
                peer = (peer + 1) % peers.count
            }
        }
    }

    /// Closes the vault and deletes its directory (the store and its WAL files).
    static func removeState() {
        vault = nil
        guard let path = stateDirectory, let directory = opendir(path) else { return }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { unlink(path + "/" + name) }
        }
        closedir(directory)
        rmdir(path)
        stateDirectory = nil
    }

    static func trap(_ message: String) -> Never {
        var line = Array("pinvault-fuzz: \(message)\n".utf8)
        _ = write(STDERR_FILENO, &line, line.count)
        abort()
    }
}
