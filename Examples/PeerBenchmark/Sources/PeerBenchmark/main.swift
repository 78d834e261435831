import Foundation

// The same workloads against FileRepository, SQLiteRepository and GRDB, in one process,
// taking turns run by run; prints a Markdown table of times and ratios (see README.md).
//
//   swift run -c release --package-path Examples/PeerBenchmark PeerBenchmark [--quick]
//       [--runs N] [--json PATH]

var quick = false
var runs: Int?
var jsonPath: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--quick": quick = true
    case "--runs":
        guard let value = arguments.popFirst().flatMap(Int.init), value > 0 else {
            FileHandle.standardError.write(Data("--runs needs a positive number\n".utf8))
            exit(2)
        }
        runs = value
    case "--json":
        guard let value = arguments.popFirst() else {
            FileHandle.standardError.write(Data("--json needs a file path\n".utf8))
            exit(2)
        }
        jsonPath = value
    default:
        FileHandle.standardError.write(
            Data(
                "unknown argument \(argument); usage: PeerBenchmark [--quick] [--runs N] [--json PATH]\n".utf8
            ))
        exit(2)
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
