// Inventory: a small service, run as two instances on one PostgreSQL table. Not from an
// article: the articles keep data on a device; this is the server side, with
// `PostgresRepository` (module RepositoriesPostgres).
//
// Without arguments the example starts a private PostgreSQL server of its own, as the tests
// do (`initdb` and `pg_ctl` in a temporary directory, on 127.0.0.1; it needs the `postgresql`
// package's binaries), and stops it at the end. `--postgres URL` uses a server of yours
// instead (`postgresql://user:password@host/database`); the run makes a new table there,
// named in the output, and leaves it for you to look at or drop.
//
// The run (InventoryStory): instances A and B of version 1 share the table, each with a cache
// that drops what the other writes; 400 restocks made as fetch-change-save lose updates, the
// same 400 through `update(id:_:)` lose none; sixteen sellers in both instances sell a stock
// of 200 bolts with `update(id:_:)` and sell exactly 200; then version 2 (items gain a shelf)
// is deployed to B, which upgrades every row when it opens, and A, still at version 1, is
// refused (`writtenByNewerVersion`) when it would save over a row B wrote, instead of
// dropping the shelf.
//
// Run: swift run Inventory [--postgres URL]
import Foundation
import RepositoriesTestSupport

@main enum InventoryExample {
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())[...]
        var url: String?
        while let argument = arguments.popFirst() {
            switch argument {
            case "--postgres" where arguments.first.map { !$0.hasPrefix("--") } ?? false:
                url = arguments.popFirst()
            case "--help", "-h":
                print(usage)
                return
            default:
                FileHandle.standardError.write(
                    Data("error: unknown argument '\(argument)'\n\n\(usage)\n".utf8))
                exit(2)
            }
        }
        do {
            let table = "inventory_" + UUID().uuidString.prefix(8).lowercased()
            if let url {
                _ = try await InventoryStory.run(connectionString: url, table: table)
                print(
                    "The table \"\(table)\" and its \"\(table)_log\", \"\(table)_feed\" and \"\(table)_keys\" stay on your server."
                )
            } else {
                print("Starting a private PostgreSQL server in a temporary directory…")
                let server = try await PostgresTestServer.start(durable: true)
                defer { server.stop() }
                _ = try await InventoryStory.run(connectionString: server.connectionString, table: table)
                print("The private server is stopped and its directory removed.")
            }
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            exit(1)
        }
    }

    static let usage = """
        usage: swift run Inventory [--postgres URL] [--help]

          --postgres URL   use your PostgreSQL server (postgresql://user:password@host/database)
                           instead of starting a private one (which needs the postgresql package)
        """
}
