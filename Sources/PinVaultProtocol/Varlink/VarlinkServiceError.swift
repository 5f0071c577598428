/// The errors of `org.varlink.service`, which any Varlink method may answer.
public enum VarlinkServiceError: Error, Equatable, Sendable {
    /// No interface of that name is served.
    case interfaceNotFound(interface: String)
    /// The interface has no method of that name.
    case methodNotFound(method: String)
    /// The interface declares the method but this service does not implement it.
    case methodNotImplemented(method: String)
    /// A parameter (or call field) is malformed; names it, never its value.
    case invalidParameter(parameter: String)
    /// The caller may not do this.
    case permissionDenied
    /// The method must be called with `more: true`.
    case expectedMore

    /// The fully qualified error name.
    public var name: String {
        switch self {
        case .interfaceNotFound: "org.varlink.service.InterfaceNotFound"
        case .methodNotFound: "org.varlink.service.MethodNotFound"
        case .methodNotImplemented: "org.varlink.service.MethodNotImplemented"
        case .invalidParameter: "org.varlink.service.InvalidParameter"
        case .permissionDenied: "org.varlink.service.PermissionDenied"
        case .expectedMore: "org.varlink.service.ExpectedMore"
        }
    }

    /// Writes the error's parameters.
    public func writeParameters(_ object: inout JSONObjectWriter) {
        switch self {
        case .interfaceNotFound(let interface): object.field("interface", interface)
        case .methodNotFound(let method): object.field("method", method)
        case .methodNotImplemented(let method): object.field("method", method)
        case .invalidParameter(let parameter): object.field("parameter", parameter)
        case .permissionDenied, .expectedMore: break
        }
    }

    /// Decodes an error of `org.varlink.service` from a reply; nil for other names.
    public init?(name: String, parameters: ParameterDecoder) {
        func text(_ key: String) -> String {
            (try? parameters.string(key, required: false, bytes: 0...Int.max)) ?? ""
        }
        switch name {
        case "org.varlink.service.InterfaceNotFound": self = .interfaceNotFound(interface: text("interface"))
        case "org.varlink.service.MethodNotFound": self = .methodNotFound(method: text("method"))
        case "org.varlink.service.MethodNotImplemented": self = .methodNotImplemented(method: text("method"))
        case "org.varlink.service.InvalidParameter": self = .invalidParameter(parameter: text("parameter"))
        case "org.varlink.service.PermissionDenied": self = .permissionDenied
        case "org.varlink.service.ExpectedMore": self = .expectedMore
        default: return nil
        }
    }
}
