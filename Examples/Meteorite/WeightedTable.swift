import Repositories

/// Something a ``WeightedTable`` picks with a probability proportional to its weight.
protocol Weighted: Sendable {
    /// The relative frequency; must be positive.
    var weight: Int { get }
}

/// A table of choices drawn in proportion to their weights.
struct WeightedTable<Choice: Weighted>: Sendable {
    private let choices: [Choice]
    private let cumulative: [Int]

    /// A table of `choices`, which must not be empty.
    init(_ choices: [Choice]) {
        precondition(!choices.isEmpty, "A weighted table needs at least one choice")
        self.choices = choices
        var total = 0
        cumulative = choices.map { choice in
            total += choice.weight
            return total
        }
    }

    /// A choice, drawn with `random`.
    func pick(using random: inout SeededRandomNumberGenerator) -> Choice {
        let draw = Int.random(in: 0..<cumulative[cumulative.count - 1], using: &random)
        var low = 0
        var high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] > draw { high = middle } else { low = middle + 1 }
        }
        return choices[low]
    }
}
