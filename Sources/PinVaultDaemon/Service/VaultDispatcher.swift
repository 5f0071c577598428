import PinVaultProtocol

/// The `FrameHandler` of pinvaultd: parses a frame as a Varlink call, answers
/// `org.varlink.service` itself, and hands `io.pinvault.Vault` calls to the service.
/// Everything a call needs, secrets included, is decoded here, while the frame lives.
final class VaultDispatcher: FrameHandler {
    private let service: VaultService
    private let info: VarlinkServiceInfo

    init(service: VaultService, version: String) {
        self.service = service
        self.info = .pinVault(version: version, url: "https://github.com/pinvault/pinvault")
    }

    func handle(frame: UnsafeRawBufferPointer, peer: Peer) -> FrameDisposition {
        let call: VarlinkCall
        do {
            call = try VarlinkCall.parse(frame)
        } catch {
            switch error {
            case .protocolViolation:
                return .protocolViolation("not a Varlink call")
            case .invalidField(let field, let oneway):
                return answer(oneway: oneway, .invalidParameter(parameter: field))
            }
        }
        if call.upgrade {
            // No method of either interface upgrades the connection.
            return answer(oneway: call.oneway, .invalidParameter(parameter: "upgrade"))
        }
        if call.isInterface(VaultInterface.name) {
            return vaultCall(call, peer: peer)
        }
        if call.isInterface(VarlinkServiceInterface.name) {
            return serviceCall(call)
        }
        return answer(oneway: call.oneway, .interfaceNotFound(interface: call.interface))
    }

    private func vaultCall(_ call: VarlinkCall, peer: Peer) -> FrameDisposition {
        let request: VaultRequest
        do {
            guard let decoded = try VaultRequest.decode(method: call.methodName, call.parameters) else {
                return answer(oneway: call.oneway, .methodNotFound(method: call.method))
            }
            request = decoded
        } catch {
            return answer(oneway: call.oneway, .invalidParameter(parameter: error.parameter))
        }
        return .call(oneway: call.oneway) { [service] context in
            service.handle(
                request,
                peer: peer,
                reply: { result in context.finish { service.encode(result, into: $0) } },
                isCancelled: { context.isCancelled }
            )
        }
    }

    private func serviceCall(_ call: VarlinkCall) -> FrameDisposition {
        let write: (ReplyBuffer) -> Void
        switch VarlinkServiceInterface.Method(rawValue: call.methodName) {
        case .getInfo:
            do {
                try call.parameters.rejectUnknown(allowed: [])
            } catch {
                return answer(oneway: call.oneway, .invalidParameter(parameter: error.parameter))
            }
            write = { [info] in VarlinkReply.appendSuccess(to: $0) { info.writeParameters(&$0) } }
        case .getInterfaceDescription:
            let name: String
            do {
                try call.parameters.rejectUnknown(allowed: ["interface"])
                name = try call.parameters.string("interface", required: true, bytes: 1...255) ?? ""
            } catch {
                return answer(oneway: call.oneway, .invalidParameter(parameter: error.parameter))
            }
            let description: String
            switch name {
            case VaultInterface.name: description = VaultInterface.description
            case VarlinkServiceInterface.name: description = VarlinkServiceInterface.description
            default: return answer(oneway: call.oneway, .interfaceNotFound(interface: name))
            }
            write = { VarlinkReply.appendSuccess(to: $0) { $0.field("description", description) } }
        case nil:
            return answer(oneway: call.oneway, .methodNotFound(method: call.method))
        }
        return .call(oneway: call.oneway) { $0.finish(encoding: write) }
    }

    private func answer(oneway: Bool, _ error: VarlinkServiceError) -> FrameDisposition {
        .call(oneway: oneway) { $0.finish { VarlinkReply.appendError(error, to: $0) } }
    }
}
