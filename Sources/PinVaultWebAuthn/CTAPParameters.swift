import PinVaultCBOR

/// A command's parameter map, read with CTAP's statuses: a missing one is
/// MISSING_PARAMETER, one of another type CBOR_UNEXPECTED_TYPE.
struct CTAPParameters {
    let map: CBORMap

    func bytes(_ key: Int, required: Bool = true) throws(CTAPFailure) -> [UInt8]? {
        guard let value = map[key] else { return try absent(required) }
        guard let bytes = value.bytesValue else { throw CTAPFailure(.cborUnexpectedType) }
        return bytes
    }

    func int(_ key: Int, required: Bool = true) throws(CTAPFailure) -> Int? {
        guard let value = map[key] else { return try absent(required) }
        guard let int = value.intValue else { throw CTAPFailure(.cborUnexpectedType) }
        return int
    }

    func text(_ key: Int, required: Bool = true) throws(CTAPFailure) -> String? {
        guard let value = map[key] else { return try absent(required) }
        guard let text = value.textValue else { throw CTAPFailure(.cborUnexpectedType) }
        return text
    }

    func map(_ key: Int, required: Bool = true) throws(CTAPFailure) -> CBORMap? {
        guard let value = map[key] else { return try absent(required) }
        guard let map = value.mapValue else { throw CTAPFailure(.cborUnexpectedType) }
        return map
    }

    func array(_ key: Int, required: Bool = true) throws(CTAPFailure) -> [CBORValue]? {
        guard let value = map[key] else { return try absent(required) }
        guard let array = value.arrayValue else { throw CTAPFailure(.cborUnexpectedType) }
        return array
    }

    /// A boolean of the options map at `key` (`rk`, `up`, `uv`).
    func option(_ name: String, in key: Int) throws(CTAPFailure) -> Bool? {
        guard let options = try map(key, required: false) else { return nil }
        guard let value = options[name] else { return nil }
        guard let flag = value.boolValue else { throw CTAPFailure(.cborUnexpectedType) }
        return flag
    }

    /// Credential descriptors' ids (allowList, excludeList).
    func credentialIds(_ key: Int) throws(CTAPFailure) -> [[UInt8]]? {
        guard let list = try array(key, required: false) else { return nil }
        var ids: [[UInt8]] = []
        for descriptor in list {
            guard let map = descriptor.mapValue, let id = map["id"]?.bytesValue, map["type"]?.textValue != nil else {
                throw CTAPFailure(.cborUnexpectedType)
            }
            if map["type"]?.textValue == "public-key" { ids.append(id) }
        }
        return ids
    }

    private func absent<T>(_ required: Bool) throws(CTAPFailure) -> T? {
        if required { throw CTAPFailure(.missingParameter) }
        return nil
    }
}
