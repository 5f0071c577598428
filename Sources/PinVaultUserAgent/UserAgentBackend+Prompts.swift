import Logging
import PinVaultAgentDoor
import PinVaultClient

/// The prompts a request waits for: each question runs on the prompt thread (one at a
/// time), and its answer comes back to the loop as an event; a prompt that could not ask
/// fails the request, saying why.
extension UserAgentBackend {
    /// Asks for the PIN: `completion` gets it on the loop, or nil when the user declined
    /// (cancel, no answer in time, ssh left) or no prompt could ask (the log says why).
    func askPIN(
        description: @escaping @Sendable () -> PromptText, error: String?, _ call: AgentCall,
        _ completion: @escaping (PIN?) -> Void
    ) {
        ask({ [prompts] in prompts.askPIN(description(), error: error, isCancelled: call.isCancelled) }) { answer in
            switch answer {
            case .answered(let pin): completion(pin)
            case .declined: completion(nil)
            case .failed: completion(nil)
            }
        }
    }

    /// Asks yes or no: `completion` gets true for a yes, on the loop.
    func confirm(_ description: @escaping @Sendable () -> PromptText, _ call: AgentCall, _ completion: @escaping (Bool) -> Void) {
        ask({ [prompts] in prompts.confirm(description(), isCancelled: call.isCancelled) }) { answer in
            guard case .answered = answer else { return completion(false) }
            completion(true)
        }
    }

    /// Runs `question` on the prompt thread and hands its answer to `completion` on the
    /// loop, logging why when nothing could ask.
    private func ask<T>(_ question: @escaping @Sendable () -> PromptAnswer<T>, _ completion: @escaping (PromptAnswer<T>) -> Void) {
        guard let loop else { return completion(.failed("the agent has no event loop")) }
        let reply = LoopOnly(completion)
        do {
            try questions.run { [self] in
                let answer = LoopOnly(question())
                loop.post { [self] in
                    if case .failed(let why) = answer.value { cannotAsk(why) }
                    reply.value(answer.value)
                }
            }
        } catch {
            cannotAsk("no thread to ask on: \(error)")
            completion(.failed("\(error)"))
        }
    }

    /// Tells the user why the request ends (the caller ends it at once): the notice
    /// stays up on a thread of its own (until dismissed or its deadline), holding no
    /// other prompt.
    func refuse(_ message: String) {
        logger.notice("\(message)")
        notify(message)
    }

    /// Shows `message` in a notice that holds no question back; nothing waits for it.
    func notify(_ message: String) {
        guard !prompts.isEmpty else { return }
        do {
            try notices.run { [prompts] in _ = prompts.tell(message, isCancelled: { false }) }
        } catch {
            logger.warning("cannot show a notice: no thread to show it on: \(error)")
        }
    }

    /// Nothing could ask the user: the log says why (ssh only hears SSH_AGENT_FAILURE,
    /// and says "agent refused operation").
    private func cannotAsk(_ why: String) {
        logger.error("cannot ask for a PIN or a yes, so the signature is refused: \(why)")
    }
}

/// A value made on one thread and used on the loop's alone, handed between them through
/// an event: a loop's continuation carried by a job it does not run, or a prompt's
/// answer (a PIN is a class of its own, used by one owner at a time).
struct LoopOnly<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
