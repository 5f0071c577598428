@testable import PinVaultProtocol
import XCTest

final class InterfaceDescriptionTests: XCTestCase {
    /// The repository root, three levels above this file.
    private var repositoryRoot: String {
        var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)  // Tests/PinVaultProtocolTests/<file>
        return components.joined(separator: "/")
    }

    private func readFile(_ path: String) throws -> [UInt8] {
        // The file is the interface's one source: not finding it is a failure, never a skip.
        guard let file = fopen(path, "rb") else {
            throw CannotOpen(description: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let read = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, 4096, file) }
            if read == 0 { break }
            bytes += chunk[0..<read]
        }
        return bytes
    }

    func testVaultDescription_isByteForByteTheRepositoryFile() throws {
        let file = try readFile(repositoryRoot + "/io.pinvault.Vault.varlink")
        XCTAssertFalse(file.isEmpty)
        XCTAssertEqual(Array(VaultInterface.description.utf8), file)
    }

    func testVaultDescription_declaresTheInterfaceName() {
        XCTAssertTrue(VaultInterface.description.contains("\ninterface io.pinvault.Vault\n"))
        XCTAssertTrue(VarlinkName.isValidInterface(VaultInterface.name))
    }

    func testVaultDescription_declaresEveryMethodWithExactlyItsParameters() {
        let lines = VaultInterface.description.split(separator: "\n").filter { $0.hasPrefix("method ") }
        XCTAssertEqual(lines.count, VaultMethod.allCases.count)
        for method in VaultMethod.allCases {
            guard let line = lines.first(where: { $0.hasPrefix("method \(method.rawValue)(") }) else {
                XCTFail("no method \(method.rawValue)")
                continue
            }
            let inputs = line.drop { $0 != "(" }.dropFirst().prefix { $0 != ")" }
            let names = inputs.split(separator: ",").compactMap { $0.split(separator: ":").first }
                .map { String($0.drop { $0 == " " }) }
            XCTAssertEqual(Set(names), method.parameterNames, method.rawValue)
            XCTAssertEqual(names.count, method.parameterNames.count, method.rawValue)
        }
    }

    func testVaultDescription_declaresEveryError() {
        for name in VaultErrorName.allCases {
            XCTAssertTrue(VaultInterface.description.contains("\nerror \(name.rawValue) ("), name.rawValue)
        }
        let count = VaultInterface.description.split(separator: "\n").filter { $0.hasPrefix("error ") }.count
        XCTAssertEqual(count, VaultErrorName.allCases.count)
    }

    func testServiceDescription_isTheStandardOne() {
        let description = VarlinkServiceInterface.description
        XCTAssertTrue(description.hasPrefix("# The Varlink Service Interface is provided by every varlink service."))
        XCTAssertTrue(description.contains("\ninterface org.varlink.service\n"))
        XCTAssertTrue(description.contains("method GetInterfaceDescription(interface: string) -> (description: string)\n"))
        for error in ["InterfaceNotFound (interface: string)", "MethodNotFound (method: string)",
                      "MethodNotImplemented (method: string)", "InvalidParameter (parameter: string)",
                      "PermissionDenied ()", "ExpectedMore ()"] {
            XCTAssertTrue(description.contains("\nerror \(error)\n"), error)
        }
        XCTAssertTrue(description.hasSuffix("error ExpectedMore ()\n"))
    }
}

private struct CannotOpen: Error, CustomStringConvertible {
    let description: String
}
