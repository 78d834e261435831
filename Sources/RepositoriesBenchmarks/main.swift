// The benchmark suite: every figure is a ratio against a baseline measured in the same run.
//
//   swift run -c release RepositoriesBenchmarks            the full run (1k, 10k, 100k entities)
//   swift run -c release RepositoriesBenchmarks --quick    a seconds-long smoke run (CI)
//   swift run -c release RepositoriesBenchmarks --large    adds 1,000,000 entities
//   … --json PATH                                          also writes the figures as JSON
import Foundation

struct Report: Codable {
    var machine: Machine
    var mode: String
    var figures: [Figure]
}

let arguments = CommandLine.arguments.dropFirst()
let unknown = arguments.filter {
    !["--quick", "--large", "--json"].contains($0) && !$0.hasPrefix("/") && !$0.contains(".")
}
if !unknown.isEmpty {
    FileHandle.standardError.write(
        Data("unknown arguments: \(unknown.joined(separator: " ")); use --quick, --large, --json PATH\n".utf8)
    )
    exit(2)
}
var jsonPath: String?
if let flag = arguments.firstIndex(of: "--json") {
    guard arguments.index(after: flag) < arguments.endIndex else {
        FileHandle.standardError.write(Data("--json needs a path\n".utf8))
        exit(2)
    }
    jsonPath = arguments[arguments.index(after: flag)]
}
let run = try BenchmarkRun(quick: arguments.contains("--quick"), large: arguments.contains("--large"))
let mode = run.quick ? "quick" : run.large ? "large" : "full"
let machine = Machine.current
print("Repositories benchmark (\(mode)) on \(machine.summary)\n")

var figures: [Figure] = []
let sections: [(String, () async throws -> [Figure])] = [
    ("in-memory", run.inMemoryFigures),
    ("decorator stack", run.stackFigures),
    ("file saves", run.fileSaveFigures),
    ("batch and reopen", run.batchAndReopenFigures),
    ("SQLite", run.sqliteFigures),
    ("growth", run.growthFigures),
    ("coalescing", run.coalescingFigures),
]
for (name, section) in sections {
    FileHandle.standardError.write(Data("measuring \(name)…\n".utf8))
    figures += try await section()
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
