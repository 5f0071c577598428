import Foundation
import PinVaultTestKit

// `make bench`: PinVault beside raw Argon2id and ssh-agent, in one run; see BenchOptions.
do {
    switch try BenchOptions.parse(Array(CommandLine.arguments.dropFirst())) {
    case .benchmark(let daemonPath, let configPath, let outputPath, let quick, let swiftVersion, let commit):
        try BenchmarkRun(
            daemonPath: daemonPath, configPath: configPath, outputPath: outputPath,
            parameters: BenchParameters(quick: quick), swiftVersion: swiftVersion, commit: commit
        ).run()
    case .driveGetPolicy(let socketPath, let count):
        let connection = try VarlinkClient(socketPath: socketPath, timeoutSeconds: 120)
        let seconds = try Monotonic.measure {
            for _ in 0..<count { try connection.roundTrip(VaultCalls.getPolicy) }
        }.seconds
        print("\(count) GetPolicy round trips in \(Format.seconds(seconds)): \(Format.rate(Double(count) / seconds))")
    case .driveIdentities(let socketPath, let count):
        let connection = try SSHAgentClient(path: socketPath, timeoutSeconds: 120)
        let seconds = try Monotonic.measure {
            for _ in 0..<count { try connection.roundTrip() }
        }.seconds
        print("\(count) REQUEST_IDENTITIES round trips in \(Format.seconds(seconds)): \(Format.rate(Double(count) / seconds))")
    case .driveSigns(let socketPath, let count):
        let connection = try SSHAgentClient(path: socketPath, timeoutSeconds: 120)
        // The first identity's key, an Ed25519 one: its blob ends with the raw key.
        try connection.send(SSHAgentClient.identitiesRequest)
        let answer = try connection.receiveFrame()
        guard answer.count > 9 + 4 + 51, answer[4] == SSHAgentClient.identitiesAnswer else { throw BenchError("no identity to sign with") }
        let blobLength = Int(answer[9]) << 24 | Int(answer[10]) << 16 | Int(answer[11]) << 8 | Int(answer[12])
        guard blobLength == 51, answer.count >= 13 + blobLength else { throw BenchError("the first identity is not an Ed25519 key") }
        let publicKey = Array(answer[(13 + 19)..<(13 + 51)])
        let request = SSHAgentClient.signRequest(publicKey: publicKey, data: SSHAgentClient.userauthRequest(publicKey: publicKey))
        let seconds = try Monotonic.measure {
            for _ in 0..<count { try connection.roundTrip(request, expecting: SSHAgentClient.signResponse) }
        }.seconds
        print("\(count) SIGN_REQUEST round trips in \(Format.seconds(seconds)): \(Format.rate(Double(count) / seconds))")
    case .nullPeer(let socketPath, let replyBytes):
        try NullPeer.serve(socketPath: socketPath, replyBytes: replyBytes)
    case .fillStore(let stateDirectory, let count):
        let outcome = try FillerStore.fill(
            stateDirectory: stateDirectory, count: count - ScaleBenchmark.ownFillerRows,
            ownUser: ScaleBenchmark.user, ownRows: ScaleBenchmark.ownFillerRows)
        print("\(Format.count(count)) credentials in \(Format.duration(outcome.seconds)), \(Format.size(outcome.bytesOnDisk)) on disk")
    }
} catch {
    FileHandle.standardError.write(Data("pinvault-bench: \(error)\n".utf8))
    exit(1)
}
