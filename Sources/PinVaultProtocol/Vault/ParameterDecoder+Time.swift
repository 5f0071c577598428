extension ParameterDecoder {
    /// An RFC 3339 UTC timestamp (`YYYY-MM-DDTHH:MM:SSZ`) as Unix seconds.
    public func time(_ name: String, required: Bool) throws(ParameterError) -> Int64? {
        guard let text = try string(name, required: required, bytes: 20...20) else { return nil }
        guard let seconds = RFC3339.unixSeconds(from: text) else { throw ParameterError(name, .malformed) }
        return seconds
    }
}
