import Foundation

// varlink-interface-generator --purposes INTERFACE.varlink OUTPUT.swift
//
// Writes `KeyPurpose`, which PinVaultCrypto compiles: one case per value of the
// `purpose` enum of the interface's `Credential` type, in the interface's order (the
// order purposes were added in: libpinvault numbers them by it), each documented by
// its entry in the interface's list of purposes (`#   name   what it is for`, its
// continuation lines indented further); a purpose without one stops the build. What a
// purpose is besides its name — its record header byte, what it may do — is written by
// hand beside the enum, in switches that do not build until they know every case.

/// The values of the `purpose` enum of the interface's `Credential` type, in order, as
/// the models read them.
func interfacePurposes(_ text: String) -> [String] {
    guard let field = typeDeclarations(text).first(where: { $0.name == "Credential" })?.fields.first(where: { $0.name == "purpose" }),
          case .swiftEnum(_, let names) = field.format
    else { fail("the interface's Credential type declares no `purpose: (…)` enum") }
    for name in names {
        guard let first = name.first, first.isLowercase, name.allSatisfy({ $0.isLowercase || $0.isNumber }) else {
            fail("a purpose is lowercase letters and digits, not \(literal(name))")
        }
    }
    return names
}

/// Each entry of the interface's opening comment (before `interface`) of the form
/// `#   name   text`, with the lines after it that open with `#` and more than three
/// spaces: the list of purposes. The name to its text.
func purposeDescriptions(_ text: String) -> [String: String] {
    var descriptions: [String: String] = [:]
    var current: String?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("interface ") { break }
        let body = line.dropFirst()
        if line.hasPrefix("#   "), let first = body.dropFirst(3).first, first != " " {
            let words = body.split(separator: " ", maxSplits: 1)
            current = words.count == 2 ? String(words[0]) : nil
            if let current { descriptions[current] = words[1].trimmingCharacters(in: .whitespaces) }
        } else if let name = current, line.hasPrefix("#    ") {
            descriptions[name, default: ""] += " " + body.trimmingCharacters(in: .whitespaces)
        } else {
            current = nil
        }
    }
    return descriptions
}

/// The Swift of `KeyPurpose` for the interface `text`.
func purposesSwift(_ text: String) -> String {
    var swift = """
    // Generated at build time from io.pinvault.Vault.varlink by Plugins/GenerateVarlinkInterface.
    // Edit the interface's Credential.purpose, never this.

    /// What a credential's key is for: the values of the interface's `Credential.purpose`,
    /// in its order. KeyPurpose.swift says what a purpose is.
    public enum KeyPurpose: String, CaseIterable, Hashable, Sendable {

    """
    let descriptions = purposeDescriptions(text)
    for name in interfacePurposes(text) {
        guard let description = descriptions[name], !description.isEmpty else {
            fail("the purpose \(name) has no entry in the interface's list of purposes (#   \(name)   what it is for)")
        }
        swift += "    /// \(description)\n    case \(name)\n"
    }
    return swift + "}\n"
}

/// `--purposes INTERFACE OUTPUT`: writes `purposesSwift` of the file at `interface` to
/// `output`, and exits.
func generatePurposes(interface: String, output: String) -> Never {
    guard let data = FileManager.default.contents(atPath: interface), let text = String(data: data, encoding: .utf8) else {
        fail("cannot read \(interface) as UTF-8")
    }
    do {
        try Data(purposesSwift(text).utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
    } catch {
        fail("cannot write \(output): \(error)")
    }
    exit(0)
}
