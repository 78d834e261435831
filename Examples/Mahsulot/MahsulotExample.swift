// Mahsulot: the products example of the Uzbek article "Repository pattern — data qatlami"
// (shared/seeds/000_65e13319bfabf2f0.txt). Its `MahsulotRepository` (network first, a local
// copy when the network fails, the network's error when the copy is empty too) becomes an
// offline-first stack, `api.offlineFirst(local: FileRepository, outbox: Outbox, conflicts:
// .mergeFields(tie: .remote))`, and its `MahsulotlarViewModel` keeps its `mahsulotlar`,
// `yuklanmoqda`, `xatoXabari` and `yuklash()`, gains the article's `saqlash(_:)`, counts the
// saves waiting to reach the API in `kutilayotganlar`, lists the conflicts the syncs settled
// in `ziddiyatlar` until `tasdiqlash(_:)`, and the saves the API refused, with its messages
// by field, in `radEtilganlar` and `maydonXatolari(_:)`.
//
// One run syncs online (the API's products come into mahsulotlar.journal), loads again
// offline (the file answers, no error), saves a new price offline (it returns at once: the
// screen shows "1 change waiting", the outbox mahsulotlar.outbox holds it, the API does not)
// while the office changes the same product's description on the API, then brings the
// network back: the sync the save started, retrying with backoff, sends the change by itself,
// merged field by field with the office's, and the story checks that the API has both edits
// and the outbox is empty. The screen lists the conflict ("merged field by field: narxi from
// this device; tavsifi from the remote") with its three versions, and the user marks it
// seen. Last, the user saves a price of 0 by mistake: the simulated API, served over HTTP in
// process, refuses it as FastAPI does (422, `{"detail": [{"loc": ["body", "narxi"], …}]}`),
// the form shows "Input should be greater than 0" beside the price, and the fixed price
// replaces the refused save and reaches the API.
// `--offline` starts with the network off: in a fresh workspace nothing is saved, so the
// article's step 4 shows the error before the network returns (with `--data-dir` and the
// files of an earlier run, the file answers instead). `--api URL` does the same against a
// real REST collection, where the saved price ends up; the refusal is skipped there, since a
// real API has rules of its own.
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
