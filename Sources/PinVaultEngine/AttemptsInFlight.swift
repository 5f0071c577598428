import PinVaultCrypto
import Synchronization

/// The PIN attempts counted durably and not settled yet, per credential: each was
/// written as a wrong PIN before its Argon2id began (`countAttempt`), and is settled
/// when its check ends — a wrong PIN keeps the count, a right one clears what came
/// before it. A right PIN asks here how many of the count are still in flight, so
/// that it clears only wrong PINs already answered, never one whose check runs
/// beside it (`FailureCounter.afterRightPin`).
///
/// Engine memory, never stored: a crash ends every check, and their counts stay
/// durable as wrong PINs. An attempt begins inside the transaction that counts it and
/// a right PIN reads the count inside the transaction that clears it, so that both
/// agree with the row (`VaultStore` runs one transaction at a time).
final class AttemptsInFlight: Sendable {
    private let counts = Mutex<[KeyID: Int]>([:])

    /// A handle for one attempt on `keyId`, not begun yet.
    func attempt(on keyId: KeyID) -> Attempt {
        Attempt(keyId: keyId, table: self)
    }

    /// The attempts on `keyId` begun and not settled.
    func count(on keyId: KeyID) -> Int {
        counts.withLock { $0[keyId] ?? 0 }
    }

    private func add(_ delta: Int, on keyId: KeyID) {
        counts.withLock { counts in
            let value = (counts[keyId] ?? 0) + delta
            counts[keyId] = value > 0 ? value : nil
        }
    }

    /// One attempt: begun once, settled once; settling one never begun does nothing.
    final class Attempt: Sendable {
        let keyId: KeyID
        private let table: AttemptsInFlight
        private enum State: UInt8, AtomicRepresentable { case waiting, begun, settled }
        private let state = Atomic<State>(.waiting)

        fileprivate init(keyId: KeyID, table: AttemptsInFlight) {
            self.keyId = keyId
            self.table = table
        }

        /// In flight from now: called in the transaction that counts it.
        func begin() {
            guard state.compareExchange(expected: .waiting, desired: .begun, ordering: .acquiringAndReleasing).exchanged else { return }
            table.add(1, on: keyId)
        }

        /// Its check is over (a wrong PIN, a right one, or no check at all); it never begins after.
        func settle() {
            guard state.exchange(.settled, ordering: .acquiringAndReleasing) == .begun else { return }
            table.add(-1, on: keyId)
        }
    }
}
