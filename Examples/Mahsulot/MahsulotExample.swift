// Mahsulot: the products example of the Uzbek article "Repository pattern — data qatlami"
// (shared/seeds/000_65e13319bfabf2f0.txt). Its `MahsulotRepository` (network first, a local
// copy when the network fails, the network's error when the copy is empty too) becomes an
// offline-first stack, `api.offlineFirst(local: FileRepository, outbox: Outbox, conflicts:
// .lastWriterWins)`, and its `MahsulotlarViewModel` keeps its `mahsulotlar`, `yuklanmoqda`,
// `xatoXabari` and `yuklash()`, gains the article's `saqlash(_:)`, and counts the saves
// waiting to reach the API in `kutilayotganlar`.
//
// One run syncs online (the API's products come into mahsulotlar.journal), loads again
// offline (the file answers, no error), saves a new price offline (it returns at once: the
// screen shows "1 change waiting", the outbox mahsulotlar.outbox holds it, the API does not),
// then brings the network back: the sync the save started, retrying with backoff, sends the
// change by itself, and the story checks that the API has it and the outbox is empty.
// `--offline` starts with the network off: in a fresh workspace nothing is saved, so the
// article's step 4 shows the error before the network returns (with `--data-dir` and the
// files of an earlier run, the file answers instead). `--api URL` does the same against a
// real REST collection, where the saved price ends up.
import ExampleSupport

@main enum MahsulotExample {
    static func main() async {
        await ExampleCommand.run(
            MahsulotStory.self, example: "Mahsulot",
            dataDirectoryHelp:
                "keep mahsulotlar.journal and mahsulotlar.outbox in PATH between runs (default: a temporary directory)"
        )
    }
}
