import Glibc
import PinVaultDaemon
import PinVaultSystem

// pinvaultd [--config PATH] [--socket PATH] [--ssh-agent-socket PATH] [--ctaphid-socket PATH] [--state-directory PATH]
//           [--log-level LEVEL] [--exit-on-idle-seconds N]   (DaemonOptions+Arguments.swift)

/// Writes `text` to `fd` whole (the help, the version, a usage error).
func emit(_ text: String, to fd: Int32) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
}

do {
    switch try DaemonOptions.parse(Array(CommandLine.arguments.dropFirst())) {
    case .help:
        emit(DaemonOptions.help, to: STDOUT_FILENO)
    case .version:
        emit(PinVaultVersion.current + "\n", to: STDOUT_FILENO)
    case .run(let options):
        exit(Daemon.run(options).rawValue)
    }
} catch {
    emit("pinvaultd: \(error)\nUsage: pinvaultd [--config <path>] [--socket <path>] [--ssh-agent-socket <path>] [--ctaphid-socket <path>] [--state-directory <path>] [--log-level <level>] [--exit-on-idle-seconds <seconds>]\nSee 'pinvaultd --help' for more information.\n", to: STDERR_FILENO)
    exit(64)  // EX_USAGE
}
