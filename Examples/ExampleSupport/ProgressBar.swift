/// A progress bar for long imports: on a terminal it redraws one line in place
/// (`[#######.............]  35%  16,000 / 45,716`); elsewhere (CI, a pipe) it prints one
/// line each quarter, so logs stay short.
public struct ProgressBar {
    /// What is progressing, printed before the bar.
    public let label: String
    /// The amount that means done.
    public let total: Int
    private let width = 30
    private let redraws: Bool
    private var lastShown = -1

    /// A bar for `total` units; draws nothing until ``update(_:)``.
    ///
    /// - Parameter redraws: redraw in place; by default, when output is a terminal.
    public init(label: String, total: Int, redraws: Bool = Console.isTerminal) {
        self.label = label
        self.total = max(total, 1)
        self.redraws = redraws
    }

    /// The bar's text at `completed` units.
    public func render(_ completed: Int) -> String {
        let done = min(max(completed, 0), total)
        let filled = done * width / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let percent = String(done * 100 / total)
        let padded = String(repeating: " ", count: max(0, 3 - percent.count)) + percent
        return "\(label) [\(bar)] \(padded)%  \(Console.grouped(done)) / \(Console.grouped(total))"
    }

    /// Shows progress at `completed` units: every whole percent on a terminal, each
    /// quarter elsewhere; the last update ends the line.
    public mutating func update(_ completed: Int) {
        let done = min(max(completed, 0), total)
        let step = redraws ? done * 100 / total : done * 4 / total
        guard step != lastShown else { return }
        lastShown = step
        if redraws {
            print("\r" + render(done), terminator: done == total ? "\n" : "")
            Console.flush()
        } else {
            print(render(done))
        }
    }
}
