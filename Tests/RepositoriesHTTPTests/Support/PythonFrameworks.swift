import Foundation
import RepositoriesTestSupport
import Testing

/// The real Python back-ends the tests run (FastAPI with uvicorn, Django REST Framework),
/// installed from PyPI into a virtual environment under `.build/python-venv`.
///
/// The environment is made on first use (`python3 -m venv`, then `pip install` of the pinned
/// `Fixtures/requirements.txt`) and reused while the requirements are unchanged, so only the
/// first run pays for the install. When it cannot be made the tests that need it fail with
/// a message saying why; they never pass without having run.
enum PythonFrameworks {
    /// A back-end app and how to start it.
    enum App: String, Sendable {
        /// `Fixtures/fastapi_app.py`, served by uvicorn.
        case fastAPI = "fastapi_app.py"
        /// `Fixtures/drf_notes/serve.py`, Django's threaded WSGI server.
        case djangoREST = "drf_notes/serve.py"
    }

    /// The virtual environment's directory: `<package>/.build/python-venv`.
    static let environment: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: ".build/python-venv")

    /// The environment's interpreter, once the environment is ready.
    ///
    /// - Throws: ``FrameworksMissing`` naming the step that failed and what to do.
    static func python() async throws -> URL {
        try await installation.value
    }

    /// The one installation of this process, started by the first test that needs it, off
    /// the cooperative pool since it waits on child processes.
    private static let installation = Task {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try install() }) }
        }
    }

    /// Starts `app` with the environment's interpreter.
    static func start(_ app: App) async throws -> FixtureServer {
        try await FixtureServer.start(
            python: try await python(), script: try FixtureServer.fixture(app.rawValue))
    }

    private static func install() throws -> URL {
        let requirements = try FixtureServer.fixture("requirements.txt")
        let wanted = try String(contentsOf: requirements, encoding: .utf8)
        let python = environment.appending(path: "bin/python")
        let stamp = environment.appending(path: "requirements.installed")
        if FileManager.default.isExecutableFile(atPath: python.path),
            (try? String(contentsOf: stamp, encoding: .utf8)) == wanted  // no stamp: install
        {
            return python
        }
        let system = try FixtureServer.locatePython()
        try run(
            system, ["-m", "venv", "--clear", environment.path],
            step: "python3 -m venv \(environment.path)",
            advice: "On Debian and Ubuntu install python3-venv (apt-get install python3-venv); .ci/run does")
        try run(
            python,
            ["-m", "pip", "install", "--disable-pip-version-check", "--quiet", "-r", requirements.path],
            step: "pip install -r Fixtures/requirements.txt",
            advice: "pip must reach PyPI (or a mirror set in pip's configuration)")
        try wanted.write(to: stamp, atomically: true, encoding: .utf8)
        return python
    }

    private static func run(_ executable: URL, _ arguments: [String], step: String, advice: String) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.runAlone()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FrameworksMissing(
                step: step, status: process.terminationStatus,
                output: String(decoding: printed.suffix(2_000), as: UTF8.self), advice: advice)
        }
    }
}

/// The virtual environment with the real back-ends could not be made.
struct FrameworksMissing: Error, CustomStringConvertible {
    var step: String
    var status: Int32
    var output: String
    var advice: String

    var description: String {
        "The real-framework tests need FastAPI and Django REST Framework in \(PythonFrameworks.environment.path), "
            + "but `\(step)` exited with status \(status). \(advice). These tests fail rather than pass "
            + "without the frameworks. Its output ended with:\n\(output)"
    }
}

/// Runs `body` with `app` started, and stops the app afterwards, whether `body` returns or
/// throws.
@discardableResult
func withFramework<T>(_ app: PythonFrameworks.App, _ body: (FixtureServer) async throws -> T) async throws
    -> T
{
    let server = try await PythonFrameworks.start(app)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
