// The interface's `type` declarations as Swift structs: `type Credential (…)` becomes
// `VaultCredential`, with one stored property per field, the field's `#` comments as its
// documentation, an inline enum `(a, b)` as a nested enum, a memberwise initialiser,
// `init(from:)` that decodes the object and `writeFields(_:)` that encodes it. The
// daemon encodes its replies with these and the client decodes them, so the two cannot
// disagree on a field's name, type or encoding.
//
// The interface says only `string`, `int` or `bool`; what a string holds (a time, base64,
// a keyId, text of some length) its header states in words. `fieldFormats` says it to
// the generator, field by field, and a string field missing from it stops the build (so
// no secret becomes a model's String unnoticed). So does a type or field without a
// comment: the models' documentation is the file's.

/// How one field is held in Swift, written and read.
enum FieldFormat {
    /// `string`: UTF-8 text of `bytes` bytes (a Swift expression).
    case text(bytes: String)
    /// `string`: 32 lowercase hex digits, checked as a `KeyID`.
    case keyId
    /// `string`: RFC 3339 UTC on the wire, `VaultTime` in Swift.
    case time
    /// `string`: standard base64 on the wire, `[UInt8]` of `bytes` bytes in Swift.
    case base64(bytes: String)
    /// `?[]string`: standard base64 strings, `[[UInt8]]` in Swift; absent when empty.
    case base64List(bytes: String)
    /// `int`: a count, `Int`, never negative. Every `int` field without another format.
    case count
    /// `int`: a uid, `UInt32`.
    case uid
    /// `bool`. Every `bool` field.
    case flag
    /// An inline enum `(a, b)`: a nested `enum` named after the field. Every inline enum
    /// without another format.
    case nestedEnum(cases: [String])
    /// An inline enum held as an existing `String`-backed Swift enum whose raw values are
    /// exactly the interface's `cases` (a test compares them, or the enum is generated from
    /// them: KeyPurpose), under a nested name after the field.
    case swiftEnum(String, cases: [String] = [])
}

/// The formats of the fields whose type alone does not say (every `string`), by name: a
/// name means one thing throughout the interface.
let fieldFormats: [String: FieldFormat] = [
    "user": .text(bytes: "ProtocolLimits.userBytes"),
    "label": .text(bytes: "ProtocolLimits.labelBytes"),
    "keyId": .keyId,
    "purpose": .swiftEnum("KeyPurpose"),
    "algorithm": .swiftEnum("KeyAlgorithm"),
    "publicKey": .base64(bytes: "ProtocolLimits.publicKeyBytes"),
    "ownerUid": .uid,
    "createdAt": .time,
    "lastUsedAt": .time,
    "lockedUntil": .time,
    "unregistrationExpiresAt": .time,
    "unlockedUntil": .time,
    "sshCertificates": .base64List(bytes: "ProtocolLimits.certificateBytes"),
    "credentialId": .base64(bytes: "PasskeySeed.credentialIdSizes"),
    "rpId": .text(bytes: "1...255"),
    "userHandle": .base64(bytes: "1...64"),
    "userName": .text(bytes: "0...64"),
    "displayName": .text(bytes: "0...64"),
]

/// Fields a daemon of an earlier release leaves out, though today's always sends them,
/// with the value that absence means: `Type.field` → a Swift expression.
let absentFromOlderDaemons: [String: String] = [
    // Before purposes existed (the second release): such a credential is legacy.
    "Credential.purpose": ".legacy",
    // Before P-256 (the fourth release): every key was Ed25519.
    "Credential.algorithm": ".default",
    // Before the KDF was counted.
    "Stats.kdfEvaluations": "0",
]

/// Checks of one field against another, made once the whole object is decoded:
/// `Type.field` → a Bool expression over the fields.
let crossChecks: [String: String] = [
    "Credential.publicKey": "algorithm.isWellFormed(publicKey: publicKey)",
]

/// One field of a `type`.
struct TypeField {
    var name: String
    var optional: Bool
    var format: FieldFormat
    /// What absence means when the interface requires the field (older daemons).
    var absent: String?
    var documentation: [String]
}

/// One `type Name (…)` declaration.
struct TypeDeclaration {
    var name: String
    var documentation: [String]
    var fields: [TypeField] = []
}

/// Every `type` of the interface text, in order. Fails, naming the line, on a type, a
/// field or a field type it cannot read or has no format for.
func typeDeclarations(_ text: String) -> [TypeDeclaration] {
    var types: [TypeDeclaration] = []
    var comments: [String] = []
    var current: TypeDeclaration?
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let line = raw.trimmingCharacters(in: .whitespaces)
        let number = index + 1
        if line.hasPrefix("#") {
            comments.append(line.dropFirst().trimmingCharacters(in: .whitespaces))
            continue
        }
        let leading = comments
        comments = []
        if var type = current {
            if line == ")" {
                guard !type.fields.isEmpty else { fail("line \(number): type \(type.name) has no field") }
                types.append(type)
                current = nil
            } else if !line.isEmpty {
                type.fields.append(typeField(line, of: type.name, documentation: leading, line: number))
                current = type
            }
        } else if line.hasPrefix("type ") {
            guard line.hasSuffix("(") else { fail("line \(number): a type's fields must start on the lines after `(`") }
            let name = line.dropFirst(5).dropLast().trimmingCharacters(in: .whitespaces)
            guard let first = name.first, first.isUppercase, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                fail("line \(number): a malformed type name")
            }
            guard !leading.isEmpty else { fail("line \(number): type \(name) has no comment: the models' documentation is the file's") }
            current = TypeDeclaration(name: name, documentation: leading)
        }
    }
    if let current { fail("type \(current.name) is not closed") }
    return types
}

/// `name: T,` (the last field without the comma).
func typeField(_ line: String, of type: String, documentation: [String], line number: Int) -> TypeField {
    let declaration = line.hasSuffix(",") ? String(line.dropLast()) : line
    guard let colon = declaration.firstIndex(of: ":") else { fail("line \(number): a field without a type") }
    let name = declaration[..<colon].trimmingCharacters(in: .whitespaces)
    guard let first = name.first, first.isLowercase, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
        fail("line \(number): a malformed field name")
    }
    guard !documentation.isEmpty else { fail("line \(number): \(type).\(name) has no comment: the models' documentation is the file's") }
    var wireType = declaration[declaration.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    let optional = wireType.hasPrefix("?")
    if optional { wireType.removeFirst() }

    let format: FieldFormat
    switch (wireType, fieldFormats[name]) {
    case ("string", .some(let known)) where known.isString,
         ("int", .some(let known)) where known.isInt,
         ("[]string", .some(let known)) where known.isList:
        format = known
    case (let enumeration, .some(.swiftEnum(let swift, _))) where enumeration.hasPrefix("("):
        format = .swiftEnum(swift, cases: enumCases(enumeration, of: name, line: number))
    case ("int", nil): format = .count
    case ("bool", nil): format = .flag
    case (let enumeration, nil) where enumeration.hasPrefix("("):
        format = .nestedEnum(cases: enumCases(enumeration, of: name, line: number))
    default:
        fail("line \(number): \(type).\(name) of type \(wireType) has no Swift format (fieldFormats in Types.swift)")
    }
    if format.isList, !optional { fail("line \(number): a list field must be optional (an empty list is left out)") }
    let absent = absentFromOlderDaemons[type + "." + name]
    if absent != nil, optional { fail("line \(number): \(type).\(name) is optional already") }
    return TypeField(name: name, optional: optional, format: format, absent: absent, documentation: documentation)
}

/// The values of an inline enum `(a, b)`: letters and digits, at least one, none twice.
func enumCases(_ enumeration: String, of name: String, line number: Int) -> [String] {
    guard enumeration.hasSuffix(")") else { fail("line \(number): the enum of \(name) without its values on the same line") }
    let cases = enumeration.dropFirst().dropLast().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    guard !cases.isEmpty, Set(cases).count == cases.count,
          cases.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
    else { fail("line \(number): a malformed enum of \(name)") }
    return cases
}

extension FieldFormat {
    var isString: Bool {
        switch self {
        case .text, .keyId, .time, .base64: true
        default: false
        }
    }

    var isInt: Bool {
        switch self {
        case .count, .uid: true
        default: false
        }
    }

    var isList: Bool {
        if case .base64List = self { return true }
        return false
    }
}

extension TypeField {
    /// The field's nested enum's name: `onMaxAttempts` → `OnMaxAttempts`.
    var enumName: String { name.prefix(1).uppercased() + name.dropFirst() }

    /// The Swift type of the value, without the optional.
    var swiftType: String {
        switch format {
        case .text, .keyId: "String"
        case .time: "VaultTime"
        case .base64: "[UInt8]"
        case .base64List: "[[UInt8]]"
        case .count: "Int"
        case .uid: "UInt32"
        case .flag: "Bool"
        case .nestedEnum, .swiftEnum: enumName
        }
    }

    /// A list is never optional in Swift: empty is absent.
    var isSwiftOptional: Bool { optional && !format.isList }

    /// The declared Swift type.
    var declaredType: String { swiftType + (isSwiftOptional ? "?" : "") }

    /// The read of the field from `object`, an optional (a list: an array, empty when absent).
    var decodeExpression: String {
        let required = optional || absent != nil ? "false" : "true"
        let key = "\"\(name)\""
        return switch format {
        case .text(let bytes): "object.string(\(key), required: \(required), bytes: \(bytes))"
        case .keyId: "object.keyID(\(key), required: \(required))?.hex"
        case .time: "object.time(\(key), required: \(required)).map(VaultTime.init(unixSeconds:))"
        case .base64(let bytes): "object.base64(\(key), required: \(required), decodedBytes: \(bytes))"
        case .base64List(let bytes): "object.base64Strings(\(key), decodedBytes: \(bytes))"
        case .count: "object.int(\(key), required: \(required), range: 0...Int64.max).map { Int($0) }"
        case .uid: "object.int(\(key), required: \(required), range: ProtocolLimits.uidRange).map { UInt32($0) }"
        case .flag: "object.bool(\(key), required: \(required))"
        case .nestedEnum, .swiftEnum: "object.enumeration(\(key), required: \(required), as: \(swiftType).self)"
        }
    }

    /// `value` (of `swiftType`) as written on the wire.
    func wireValue(_ value: String) -> String {
        switch format {
        case .text, .keyId, .count, .flag: value
        case .time: "\(value).rfc3339"
        case .base64: "Base64.encodedString(\(value))"
        case .base64List: "\(value).map { Base64.encodedString($0) }"
        case .uid: "Int64(\(value))"
        case .nestedEnum, .swiftEnum: "\(value).rawValue"
        }
    }
}

/// `lines` as `///` comments indented by `indent`.
func documentation(_ lines: [String], indent: String) -> String {
    lines.map { indent + "/// " + $0 + "\n" }.joined()
}

/// The Swift of every `type` of the interface.
func generatedTypes(_ text: String) -> String {
    let types = typeDeclarations(text)
    let declared = Set(types.flatMap { type in type.fields.map { type.name + "." + $0.name } })
    for key in Array(absentFromOlderDaemons.keys) + Array(crossChecks.keys) where !declared.contains(key) {
        fail("\(key), in Types.swift, is no field of the interface")
    }
    var swift = "\nimport PinVaultCrypto\n"
    for type in types {
        let swiftName = "Vault" + type.name
        swift += """

        // MARK: - \(type.name)


        """
        swift += documentation(type.documentation, indent: "")
        swift += "///\n/// `io.pinvault.Vault.\(type.name)`, generated from the interface file.\n"
        swift += "public struct \(swiftName): Equatable, Sendable {\n"
        for field in type.fields {
            switch field.format {
            case .nestedEnum(let cases):
                swift += documentation(field.documentation, indent: "    ")
                swift += "    public enum \(field.enumName): String, CaseIterable, Sendable {\n"
                swift += "        case \(cases.joined(separator: ", "))\n    }\n\n"
            case .swiftEnum(let existing, _):
                swift += documentation(field.documentation, indent: "    ")
                swift += "    public typealias \(field.enumName) = \(existing)\n\n"
            default:
                continue
            }
        }
        for field in type.fields {
            swift += documentation(field.documentation, indent: "    ")
            if let absent = field.absent {
                swift += "    ///\n    /// A daemon of an earlier release leaves it out: `\(absent)`.\n"
            }
            swift += "    public var \(field.name): \(field.declaredType)\n"
        }

        let parameters = type.fields.map { field in
            let defaultValue = field.format.isList ? " = []" : field.isSwiftOptional ? " = nil" : ""
            return "\(field.name): \(field.declaredType)\(defaultValue)"
        }
        swift += """

            /// Each field as given.
            public init(
                \(parameters.joined(separator: ",\n        "))
            ) {

        """
        for field in type.fields {
            swift += "        self.\(field.name) = \(field.name)\n"
        }
        swift += """
            }

            /// Decodes a `\(type.name)` object. A required field that is absent or `null`, a field
            /// of the wrong JSON type or out of its range names itself in the `ParameterError`;
            /// members the interface does not declare are ignored (a newer daemon's).
            public init(from object: ParameterDecoder) throws(ParameterError) {

        """
        for field in type.fields {
            let read = "try \(field.decodeExpression)"
            if field.format.isList || field.isSwiftOptional {
                swift += "        \(field.name) = \(read)\n"
            } else if let absent = field.absent {
                swift += "        \(field.name) = \(read) ?? \(absent)\n"
            } else {
                swift += "        \(field.name) = try ParameterError.present(\"\(field.name)\", \(read))\n"
            }
        }
        for field in type.fields {
            guard let check = crossChecks[type.name + "." + field.name] else { continue }
            swift += "        guard \(check) else { throw ParameterError(\"\(field.name)\", .malformed) }\n"
        }
        swift += """
            }

            /// Writes the object's fields in the interface's order; an absent optional and an
            /// empty list are left out.
            public func writeFields(_ object: inout JSONObjectWriter) {

        """
        for field in type.fields {
            let key = "\"\(field.name)\""
            if field.format.isList {
                swift += "        if !\(field.name).isEmpty { object.field(\(key), strings: \(field.wireValue(field.name))) }\n"
            } else if field.isSwiftOptional {
                swift += "        if let \(field.name) { object.field(\(key), \(field.wireValue(field.name))) }\n"
            } else {
                swift += "        object.field(\(key), \(field.wireValue(field.name)))\n"
            }
        }
        swift += "    }\n}\n"
    }
    return swift
}
