import Dispatch
import Logging
import PinVaultAgentDoor
import PinVaultClient

/// The prompts a request waits for: each question runs on the agent's one prompt queue
/// (one prompt at a time), and a prompt that could not ask fails the request, saying why.
extension UserAgentBackend {
    /// The PIN, or nil when the user declined (cancel, no answer in time, ssh left).
    /// When no prompt could ask, why is in the log, and the request fails.
    func askPIN(description: PromptText, error: String?, _ call: AgentCall) async throws -> PIN? {
        let answer = await onPromptQueue { [prompts] in prompts.askPIN(description, error: error, isCancelled: call.isCancelled) }
        switch answer {
        case .answered(let pin): return pin
        case .declined: return nil
        case .failed(let why): throw cannotAsk(why)
        }
    }

    /// Runs a yes/no question on the prompt queue: true for a yes.
    func ask(_ call: AgentCall, _ question: @escaping @Sendable (PromptChain, @escaping @Sendable () -> Bool) -> PromptAnswer<Void>) async throws -> Bool {
        let answer = await onPromptQueue { [prompts] in question(prompts, call.isCancelled) }
        switch answer {
        case .answered: return true
        case .declined: return false
        case .failed(let why): throw cannotAsk(why)
        }
    }

    private func onPromptQueue<T>(_ body: @escaping @Sendable () -> PromptAnswer<T>) async -> PromptAnswer<T> {
        await withCheckedContinuation { (continuation: CheckedContinuation<UncheckedAnswer<T>, Never>) in
            promptQueue.async { continuation.resume(returning: UncheckedAnswer(answer: body())) }
        }.answer
    }

    /// A prompt's answer handed from the prompt queue to the request that waits for it
    /// (a PIN is a class of its own, used by one owner at a time).
    private struct UncheckedAnswer<T>: @unchecked Sendable {
        let answer: PromptAnswer<T>
    }

    /// Nothing could ask the user: the log says why (ssh only hears SSH_AGENT_FAILURE,
    /// and says "agent refused operation").
    private func cannotAsk(_ why: String) -> Refused {
        logger.error("cannot ask for a PIN or a yes, so the signature is refused: \(why)")
        return Refused()
    }
}
