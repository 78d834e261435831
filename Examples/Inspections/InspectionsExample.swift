// Inspections: related entity types synced in causal order, and an app extension writing
// the same store. Not from an article: a field-inspection app whose API refuses a finding
// whose inspection it lacks, as a database with a foreign key does.
//
// The device keeps inspections and findings in one SQLite database, inspections.sqlite,
// each type a table with its pending changes beside it, the two offline-first repositories
// one `SyncGroup`. A finding's change names its inspection as what it needs first
// (`dependsOn: SyncDependency(Inspection.self, id:)`).
//
// The run: the inspector saves two inspections with their findings; the second inspection's
// site is left blank by mistake. The share extension, this executable started again as a
// second process, opens the same database and saves a finding on the first inspection. The
// app's badge (`group.status()`) counts every change of both types and both processes. The
// group's sync sends the inspections, then the findings; the API refuses the blank
// inspection, and its finding is held back, saying which change it waits for, instead of
// being sent to fail. The inspector fills in the site, and the next sync sends the
// inspection, then its finding. The story checks that the API never refused a finding for
// want of its inspection and that the device and the API agree.
//
// `--offline` starts with the network off: the first sync is postponed and every change
// waits, then the network comes back and the story goes on. `--api URL` does not apply (the
// example simulates its API), and `--data-dir PATH` keeps inspections.sqlite after the run;
// it must start empty.
//
// Run: swift run Inspections [--offline] [--data-dir PATH]
import ExampleSupport
import Foundation

/// `swift run Inspections`: see the header comment.
@main enum InspectionsExample {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == ShareExtensionProcess.flag {
            do {
                try await ShareExtensionProcess.run(Array(arguments.dropFirst()))
            } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                exit(1)
            }
            return
        }
        await ExampleCommand.run(
            InspectionsStory.self, example: "Inspections",
            dataDirectoryHelp:
                "keep inspections.sqlite (the inspections, the findings and their pending changes) in PATH after "
                + "the run; PATH must start empty (default: a temporary directory)"
        )
    }
}
