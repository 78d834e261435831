// Mahsulot: the products example of the Uzbek article "Repository pattern — data qatlami"
// (shared/seeds/000_65e13319bfabf2f0.txt). Its `MahsulotRepository` (network first, a local
// copy when the network fails, the network's error when the copy is empty too) becomes
// `api.fallback(to: FileRepository<Mahsulot>(…))`, and its `MahsulotlarViewModel` keeps its
// `mahsulotlar`, `yuklanmoqda` and `xatoXabari`. One run loads online (the products are
// mirrored into a file), loads again offline (served from the file, and the stack says so),
// then fails to save offline without writing anything, and checks that it did not. `--offline`
// starts with the network off: in a fresh workspace nothing is saved, so the article's step 4
// shows the error before the network returns (with `--data-dir` and the file of an earlier
// run, the file answers instead).
import ExampleSupport

@main enum MahsulotExample {
    static func main() async {
        await ExampleCommand.run(
            example: "Mahsulot",
            dataDirectoryHelp:
                "keep mahsulotlar.journal in PATH between runs (default: a temporary directory)"
        ) { options in
            let workspace = try ExampleWorkspace(options: options, example: "Mahsulot")
            try await withCleanup {
                let story = try await MahsulotStory(options: options, workspace: workspace)
                try await withCleanup {
                    try await story.tell()
                } cleanup: {
                    try await story.close()
                }
            } cleanup: {
                try workspace.close()
            }
        }
    }
}
