import Foundation

// The same workloads against FileRepository, SQLiteRepository and GRDB, in one process,
// taking turns run by run; prints a Markdown table of times and ratios (see README.md).
//
//   swift run -c release --package-path Examples/PeerBenchmark PeerBenchmark [--quick]
//       [--runs N] [--json PATH]

/// Prints `message` and the usage to standard error, and exits with status 2.
func usageError(_ message: String) -> Never {
    let usage = "usage: PeerBenchmark [--quick] [--runs N] [--json PATH]"
    FileHandle.standardError.write(Data("\(message)\n\(usage)\n".utf8))
    exit(2)
}

var quick = false
var runs: Int?
var jsonPath: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--quick": quick = true
    case "--runs":
        guard let value = arguments.popFirst().flatMap(Int.init), value > 0 else {
            usageError("--runs needs a positive number")
        }
        runs = value
    case "--json":
        guard let value = arguments.popFirst() else { usageError("--json needs a file path") }
        jsonPath = value
    default: usageError("unknown argument \(argument)")
    }
}

let run = try PeerRun(quick: quick, runs: runs)
// GRDB's settings, read off a store of its own: the durability the comparison rests on.
let probeURL = run.file("settings")
let probe = try await GRDBStore(url: probeURL)
let synchronous = try await probe.synchronousLevel()
let (journalMode, sqliteVersion) = try await probe.settings()
try await probe.close()
try run.discard(probeURL)
print(
    "PeerBenchmark: \(run.entityCount) entities, median of \(run.runs) runs, contenders taking turns; "
        + "SQLite \(sqliteVersion) (the system's, shared by GRDB and RepositoriesSQLite); "
        + "GRDB writer: journal_mode=\(journalMode), synchronous=\(synchronous) (2 = FULL)\n")

let report = Report(
    entityCount: run.entityCount, runs: run.runs, quick: quick, sqliteVersion: sqliteVersion,
    grdbSynchronous: synchronous, targetSpeedup: 1, workloads: try await run.workloads())
try run.removeScratch()
print(Table.markdown(report, contenders: run.contenders))
if let jsonPath {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(report).write(to: URL(fileURLWithPath: jsonPath))
    print("\nwrote \(jsonPath)")
}
