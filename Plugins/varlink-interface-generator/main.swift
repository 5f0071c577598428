import Foundation

// varlink-interface-generator INTERFACE.varlink OUTPUT.swift
// varlink-interface-generator --purposes INTERFACE.varlink OUTPUT.swift (Purposes.swift)
//
// Writes the Swift that PinVaultProtocol compiles from the interface file: the file's
// bytes as `VaultInterface.description`, and `VaultMethod` and `VaultErrorName`, one
// case per `method` and `error` line with the parameter names it declares (and a
// method's output names). Fails, naming the line, on a declaration it cannot read: a
// build must not go on with an interface it misunderstood.

struct Declaration {
    var name: String
    var parameters: [String]
    /// A method's output parameters (the list after `->`); empty for an error.
    var outputs: [String] = []
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("varlink-interface-generator: \(message)\n".utf8))
    exit(1)
}

/// The names of `a: T, b: ?T` (the text between a declaration's first parentheses).
func parameterNames(_ list: Substring, line: Int) -> [String] {
    list.split(separator: ",").map { field in
        guard let colon = field.firstIndex(of: ":") else { fail("line \(line): a parameter without a type") }
        let name = field[..<colon].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            fail("line \(line): a malformed parameter name")
        }
        return name
    }
}

/// `method Name(…) -> (…)` or `error Name (…)`, each on one line (as the file keeps them).
func declaration(_ text: Substring, keyword: String, line: Int) -> Declaration {
    let rest = text.dropFirst(keyword.count + 1)
    guard let open = rest.firstIndex(of: "("), let close = rest[open...].firstIndex(of: ")") else {
        fail("line \(line): \(keyword) without its parameter list on the same line")
    }
    let name = rest[..<open].trimmingCharacters(in: .whitespaces)
    guard let first = name.first, first.isUppercase, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
        fail("line \(line): a malformed \(keyword) name")
    }
    var made = Declaration(name: name, parameters: parameterNames(rest[rest.index(after: open)..<close], line: line))
    if keyword == "method" {
        let after = rest[rest.index(after: close)...]
        guard let arrow = after.range(of: "->"), let outOpen = after[arrow.upperBound...].firstIndex(of: "("),
              after[arrow.upperBound..<outOpen].allSatisfy({ $0 == " " }),
              let outClose = after[outOpen...].firstIndex(of: ")")
        else { fail("line \(line): method without `-> (…)` on the same line") }
        made.outputs = parameterNames(after[after.index(after: outOpen)..<outClose], line: line)
    }
    return made
}

/// `GetPolicy` → `getPolicy`.
func caseName(_ name: String) -> String {
    name.prefix(1).lowercased() + name.dropFirst()
}

/// A Swift string literal holding exactly `text`.
func literal(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": out += "\\\\"
        case "\"": out += "\\\""
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case " "..."~": out.unicodeScalars.append(scalar)
        default: out += "\\u{\(String(scalar.value, radix: 16))}"
        }
    }
    return out + "\""
}

let arguments = CommandLine.arguments
if arguments.count == 4, arguments[1] == "--purposes" { generatePurposes(interface: arguments[2], output: arguments[3]) }
guard arguments.count == 3 else { fail("usage: varlink-interface-generator INTERFACE.varlink OUTPUT.swift") }
guard let data = FileManager.default.contents(atPath: arguments[1]),
      let text = String(data: data, encoding: .utf8)
else { fail("cannot read \(arguments[1]) as UTF-8") }

var methods: [Declaration] = []
var errors: [Declaration] = []
for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
    if line.hasPrefix("method ") { methods.append(declaration(line, keyword: "method", line: index + 1)) }
    if line.hasPrefix("error ") { errors.append(declaration(line, keyword: "error", line: index + 1)) }
}
guard !methods.isEmpty, !errors.isEmpty else { fail("\(arguments[1]) declares no method or no error") }

var swift = """
// Generated at build time from io.pinvault.Vault.varlink by Plugins/GenerateVarlinkInterface.
// Edit the interface file, never this.

extension VaultInterface {
    /// The interface definition, with its documentation comments: byte for byte the
    /// repository's `io.pinvault.Vault.varlink`.
    public static let description = \(literal(text))
}

/// The methods of `io.pinvault.Vault`, with the parameters each declares.
public enum VaultMethod: String, CaseIterable, Sendable {

"""
for method in methods {
    swift += "    case \(caseName(method.name)) = \"\(method.name)\"\n"
}
swift += """

    /// `io.pinvault.Vault.<Method>`.
    public var qualifiedName: String { VaultInterface.name + "." + rawValue }

    /// Every parameter name the method declares; anything else is `InvalidParameter`.
    public var parameterNames: Set<String> {
        switch self {

"""
for method in methods {
    swift += "        case .\(caseName(method.name)): [\(method.parameters.map { "\"\($0)\"" }.joined(separator: ", "))]\n"
}
swift += """
        }
    }

    /// The output parameters the method declares: exactly the names of a success reply.
    public var outputNames: Set<String> {
        switch self {

"""
for method in methods {
    swift += "        case .\(caseName(method.name)): [\(method.outputs.map { "\"\($0)\"" }.joined(separator: ", "))]\n"
}
swift += """
        }
    }
}

/// The errors of `io.pinvault.Vault`.
public enum VaultErrorName: String, CaseIterable, Sendable {

"""
for error in errors {
    swift += "    case \(caseName(error.name)) = \"\(error.name)\"\n"
}
swift += """

    /// `io.pinvault.Vault.<Name>`.
    public var qualifiedName: String { VaultInterface.name + "." + rawValue }

    /// The parameters the error declares, in order.
    public var parameterNames: [String] {
        switch self {

"""
for error in errors {
    swift += "        case .\(caseName(error.name)): [\(error.parameters.map { "\"\($0)\"" }.joined(separator: ", "))]\n"
}
swift += """
        }
    }

    /// The name for a fully qualified error string; nil for other interfaces' errors.
    public init?(qualifiedName: String) {
        let prefix = VaultInterface.name + "."
        guard qualifiedName.hasPrefix(prefix) else { return nil }
        self.init(rawValue: String(qualifiedName.dropFirst(prefix.count)))
    }
}

"""
swift += generatedTypes(text)  // a struct per `type` (Types.swift)
do {
    try Data(swift.utf8).write(to: URL(fileURLWithPath: arguments[2]), options: .atomic)
} catch {
    fail("cannot write \(arguments[2]): \(error)")
}
