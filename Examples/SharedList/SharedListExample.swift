// SharedList: two devices editing the same items offline, and a merge. Not from an article:
// the articles' apps have one user on one device, and this is the case they leave out, a
// list two people keep (a shopping list, say), each on their own device.
//
// Each device has its own files in its own subdirectory of the workspace (phone/ and
// laptop/, each with items.journal and items.outbox) and its own offline-first stack over
// the one API: `api.offlineFirst(local: FileRepository, outbox: Outbox, conflicts: .merge {
// base, mine, theirs in ShoppingItem.merged(base:mine:theirs:) })`. The merge goes field by
// field: a field one device changed takes that device's value; a field both changed keeps
// the larger quantity, both notes, and the bought flag if either bought it.
//
// The run: the phone writes the list (Milk ×1, Bread ×2, Apples ×6) and syncs; the laptop
// syncs and has it. The network drops. The phone makes it two milks, eight apples and rye
// bread; the laptop marks the milk bought and makes it ten apples. The network returns:
// the phone syncs first (its changes go up as they are), then the laptop (the API changed
// Milk and Apples since the laptop read them, so the merge runs for each), then the phone
// again (the merged items come in). The story checks that the phone, the laptop and the API
// hold the same list, with every edit kept, and that both outboxes are empty. The syncs are
// explicit, so which device syncs first is the story's choice, not the scheduler's.
//
// `--offline` starts with the network off: the phone's list waits in its outbox, the
// laptop's first sync is postponed and it has nothing to edit, then the network comes up,
// the list is shared, and the story goes on as online. `--api URL` uses a real REST
// collection (`items`) for the API.
//
// Run: swift run SharedList [--offline] [--api URL] [--data-dir PATH]
import ExampleSupport

/// `swift run SharedList`: see the header comment.
@main enum SharedListExample {
    static func main() async {
        await ExampleCommand.run(
            SharedListStory.self, example: "SharedList",
            dataDirectoryHelp:
                "keep phone/ and laptop/ (each with items.journal and items.outbox) in PATH between runs "
                + "(default: a temporary directory)"
        )
    }
}
