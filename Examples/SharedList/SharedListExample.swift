// SharedList: two devices editing the same items offline, the conflicts their syncs
// settle, and a change the API refuses. Not from an article: the articles' apps have one user
// on one device, and this is the case they leave out, a list two people keep (a shopping
// list, say), each on their own device.
//
// Each device has its own files in its own subdirectory of the workspace (phone/ and
// laptop/, each with items.journal and items.outbox) and its own offline-first stack over
// the one API: `api.offlineFirst(local: FileRepository, outbox: Outbox, conflicts:
// ShoppingItem.conflictPolicy)`, a field-by-field merge (`.mergeFields`) whose tie keeps the
// larger quantity of two, and the API's value of any other field both devices changed.
//
// The run: the phone writes the list (Milk ×1, Bread ×2, Apples ×6) and syncs; the laptop
// syncs and has it. The network drops. The phone makes it two milks, eight apples and rye
// bread; the laptop marks the milk bought, makes it ten apples and sliced bread. The network
// returns: the phone syncs first (its changes go up as they are), then the laptop (the API
// changed Milk, Bread and Apples since the laptop read them, so each is settled, and the
// laptop's screen lists the record of each: "merged field by field: note changed on both,
// the remote's kept"), then the phone again (the settled items come in). The story checks
// that the phone, the laptop and the API hold the same list and both outboxes are empty,
// accounts for every edit (in the list, or given way and named by a conflict record), and
// the laptop's user acknowledges the records. Last, the phone makes Bread ×0: the simulated
// API, served over HTTP in process, refuses it as Django REST Framework does (400,
// `{"quantity": ["Ensure this value is greater than or equal to 1."]}`), the phone's form
// shows the message beside the quantity, and the user discards the change, which puts the
// API's Bread back. The syncs are explicit, so which device syncs first is the story's
// choice, not the scheduler's.
//
// `--offline` starts with the network off: the phone's list waits in its outbox, the
// laptop's first sync is postponed and it has nothing to edit, then the network comes up,
// the list is shared, and the story goes on as online. `--api URL` uses a real REST
// collection (`items`) for the API, and skips the refusal: a real API has rules of its own.
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
