import Foundation

/// The Python interpreter that has the PyPI `varlink` package: `$PINVAULT_PYTHON`
/// (set by `make test`), else the repository's `.venv`. Its absence is an error, not
/// a reason to skip: the README promises that any Varlink client works.
public enum PythonVarlink {
    public static func interpreter() throws -> String {
        if let configured = ProcessInfo.processInfo.environment["PINVAULT_PYTHON"], !configured.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: configured) else {
                throw TestKitError("PINVAULT_PYTHON=\(configured) is not an executable; run `make test`")
            }
            return configured
        }
        let venv = TestDaemon.repositoryRoot + "/.venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: venv) else {
            throw TestKitError("no Python with the varlink package: run `make test` (it creates \(venv)) or set PINVAULT_PYTHON")
        }
        return venv
    }
}
