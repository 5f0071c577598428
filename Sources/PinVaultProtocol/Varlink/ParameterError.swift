/// A parameter the method cannot use, answered as
/// `org.varlink.service.InvalidParameter(parameter)`.
///
/// Names the parameter, never its value.
public struct ParameterError: Error, Equatable, Sendable {
    /// What was wrong with it.
    public enum Reason: Equatable, Sendable {
        /// Required, but absent or `null`.
        case missing
        /// Present with another JSON type.
        case wrongType
        /// A length, count or number outside the allowed range.
        case outOfRange
        /// The right type, but not a valid value (bad base64, a `keyId` that is not
        /// 32 lowercase hex digits, an unknown enum value).
        case malformed
        /// Not a parameter of this method.
        case unknown
        /// Secret memory for the value could not be allocated.
        case outOfMemory
    }

    /// The parameter's name, as the method declares it (or as sent, for `.unknown`).
    public let parameter: String
    /// What was wrong with it.
    public let reason: Reason

    /// An error for `parameter`.
    public init(_ parameter: String, _ reason: Reason) {
        self.parameter = parameter
        self.reason = reason
    }
}

extension ParameterError {
    /// `value`, or `.missing` for `name` when there is none: a required member of a
    /// generated model, read with an accessor that answers an optional.
    public static func present<T>(_ name: String, _ value: T?) throws(ParameterError) -> T {
        guard let value else { throw ParameterError(name, .missing) }
        return value
    }
}
