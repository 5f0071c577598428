import PinVaultProtocol

/// What the daemon owes a peer for each frame it sent, read from the bytes alone with
/// the protocol's own parser: a reply (to which method), none (a `oneway` call), or
/// the end of the connection (not a Varlink call, or no NUL within the limit).
/// Replies carry no id, so their order is checked by their shape: a success reply
/// holds exactly the output parameters of its call's method, and an error that names
/// a method or interface names the call's.
enum ReplyExpectation: Equatable {
    /// One reply to a call of this method (`interface.Method`, as the call wrote it).
    case reply(method: String, interface: String)
    /// A `oneway` call: it runs, and nothing comes back.
    case none
    /// The connection is closed, with this reason logged; nothing after it is read.
    case close(reason: String)

    /// The expectation for one frame (NUL excluded).
    static func of(frame: UnsafeRawBufferPointer) -> ReplyExpectation {
        do {
            let call = try VarlinkCall.parse(frame)
            return call.oneway ? .none : .reply(method: call.method, interface: call.interface)
        } catch {
            switch error {
            case .protocolViolation:
                return .close(reason: "not a Varlink call")
            case .invalidField(_, let oneway):
                return oneway ? .none : .reply(method: "", interface: "")
            }
        }
    }

    /// The reason the transport logs for a frame without a NUL within the limit.
    static let tooLarge = ReplyExpectation.close(reason: "no NUL within server.max_message_bytes")

    /// The output parameters of a method (`interface.Method`): `io.pinvault.Vault`'s as
    /// its interface file declares them (`VaultMethod.outputNames`, generated from it),
    /// `org.varlink.service`'s as the Varlink specification does.
    static func outputs(of method: String) -> Set<String>? {
        let vault = VaultInterface.name + "."
        if method.hasPrefix(vault) {
            return VaultMethod(rawValue: String(method.dropFirst(vault.count)))?.outputNames
        }
        return serviceOutputs[method]
    }

    static let serviceOutputs: [String: Set<String>] = [
        "org.varlink.service.GetInfo": ["vendor", "product", "version", "url", "interfaces"],
        "org.varlink.service.GetInterfaceDescription": ["description"],
    ]

    /// Traps unless `reply` (already checked by `ReplyCheck`) can answer a call of
    /// `method`: the reply of another call means the replies came out of order.
    static func check(_ reply: VarlinkReplyMessage, answers method: String, interface: String, text: () -> String) {
        guard let error = reply.error else {
            guard let expected = outputs(of: method) else {
                FuzzHarness.trap("a success reply to \(method.isEmpty ? "a malformed call" : method): \(text())")
            }
            guard Set(reply.parameters.names) == expected else {
                FuzzHarness.trap("a reply out of order: \(method) answered with \(text())")
            }
            return
        }
        if error == "org.varlink.service.MethodNotFound",
           (try? reply.parameters.string("method", required: true, bytes: 0...65536)) != method {
            FuzzHarness.trap("a reply out of order: \(method) answered with \(text())")
        }
        if error.hasPrefix("io.pinvault.Vault."), interface != "io.pinvault.Vault" {
            FuzzHarness.trap("a reply out of order: \(method.isEmpty ? "a malformed call" : method) answered with \(text())")
        }
    }
}
