// The benchmark suite: every figure is a ratio against a baseline measured in the same run.
//
//   swift run -c release RepositoriesBenchmarks            the full run (1k, 10k, 100k entities)
//   swift run -c release RepositoriesBenchmarks --quick    a seconds-long smoke run (CI)
//   swift run -c release RepositoriesBenchmarks --large    adds 1,000,000 entities
//   … --json PATH                                          also writes the figures as JSON
//   … --only SECTION                                       runs one section (for profiling)
import Foundation

struct Report: Codable {
    var machine: Machine
    var mode: String
    var figures: [Figure]
}

let arguments = Array(CommandLine.arguments.dropFirst())
// Figure 18's writing process: this executable started again by the benchmark itself.
if arguments.first == BenchmarkRun.crossProcessWriterFlag, arguments.count == 3, let count = Int(arguments[2])
{
    try await BenchmarkRun.writeStamps(url: URL(fileURLWithPath: arguments[1]), count: count)
    exit(0)
}
// Figure 19's writing process: an offline-first writer into a shared SQLite outbox.
if arguments.first == BenchmarkRun.sharedOutboxWriterFlag, arguments.count == 3, let count = Int(arguments[2])
{
    try await BenchmarkRun.writeStampsThroughSharedOutbox(
        url: URL(fileURLWithPath: arguments[1]), count: count)
    exit(0)
}
/// The value after `flag`, if the flag was given.
func value(after flag: String) -> String? {
    guard let index = arguments.firstIndex(of: flag) else { return nil }
    guard index + 1 < arguments.count else {
        FileHandle.standardError.write(Data("\(flag) needs a value\n".utf8))
        exit(2)
    }
    return arguments[index + 1]
}
let jsonPath = value(after: "--json")
let onlySection = value(after: "--only")
let unknown = arguments.enumerated().filter { offset, argument in
    let isValue = offset > 0 && ["--json", "--only"].contains(arguments[offset - 1])
    return !isValue && !["--quick", "--large", "--json", "--only"].contains(argument)
}.map(\.element)
if !unknown.isEmpty {
    FileHandle.standardError.write(
        Data(
            "unknown arguments: \(unknown.joined(separator: " ")); use --quick, --large, --json PATH, --only SECTION\n"
                .utf8)
    )
    exit(2)
}
let sections: [(String, (BenchmarkRun) -> () async throws -> [Figure])] = [
    ("in-memory", BenchmarkRun.inMemoryFigures),
    ("decorator stack", BenchmarkRun.stackFigures),
    ("file saves", BenchmarkRun.fileSaveFigures),
    ("batch and reopen", BenchmarkRun.batchAndReopenFigures),
    ("SQLite", BenchmarkRun.sqliteFigures),
    ("PostgreSQL", BenchmarkRun.postgresFigures),
    ("growth", BenchmarkRun.growthFigures),
    ("queries", BenchmarkRun.queryFigures),
    ("coalescing", BenchmarkRun.coalescingFigures),
    ("offline-first", BenchmarkRun.offlineFirstFigures),
    ("outbox in SQLite", BenchmarkRun.sqliteOutboxFigures),
    ("across processes", BenchmarkRun.crossProcessFigures),
    ("related types", BenchmarkRun.syncGroupFigures),
    ("incremental sync", BenchmarkRun.incrementalSyncFigures),
    ("partial sync", BenchmarkRun.partialSyncFigures),
    ("observers", BenchmarkRun.observerFigures),
    ("sync server", BenchmarkRun.syncServerFigures),
    ("migrations", BenchmarkRun.migrationFigures),
    ("codec", BenchmarkRun.codecFigures),
]
if let onlySection, !sections.contains(where: { $0.0 == onlySection }) {
    let names = sections.map { "\"\($0.0)\"" }.joined(separator: ", ")
    FileHandle.standardError.write(Data("unknown section \(onlySection); the sections are \(names)\n".utf8))
    exit(2)
}

let run = try BenchmarkRun(quick: arguments.contains("--quick"), large: arguments.contains("--large"))
let mode = run.quick ? "quick" : run.large ? "large" : "full"
let machine = Machine.current
print("Repositories benchmark (\(mode)) on \(machine.summary)\n")

var figures: [Figure] = []
for (name, section) in sections where onlySection == nil || name == onlySection {
    FileHandle.standardError.write(Data("measuring \(name)…\n".utf8))
    figures += try await section(run)()
}
try run.removeScratch()

print("| # | figure | measured | baseline | ratio | target | verdict | note |")
print("|---|---|---|---|---|---|---|---|")
for figure in figures { print(figure.markdownRow) }
let missed = figures.filter { $0.met == false }
print(
    "\n\(figures.count) figures, \(figures.count - missed.count - figures.filter { $0.met == nil }.count) targets met, \(missed.count) missed."
)

if let jsonPath {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(Report(machine: machine, mode: mode, figures: figures)).write(
        to: URL(fileURLWithPath: jsonPath))
    print("Wrote \(jsonPath)")
}
