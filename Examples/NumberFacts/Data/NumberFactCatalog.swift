/// What the simulated numbers API knows: one fact for each number in ``numbers``, the same
/// on every run. A few are trivia; the rest are worked out from the number (prime, square,
/// triangular, Fibonacci, or its prime factors). Other numbers have no fact.
enum NumberFactCatalog {
    /// The numbers the API has a fact for.
    static let numbers = 0...100

    /// Every fact, in order of the numbers.
    static var facts: [NumberFact] { numbers.compactMap(fact(about:)) }

    /// The fact the API gives for `number`; `nil` outside ``numbers``.
    static func fact(about number: Int) -> NumberFact? {
        guard numbers.contains(number) else { return nil }
        return NumberFact(id: number, text: trivia[number] ?? arithmetic(of: number))
    }

    private static let trivia: [Int: String] = [
        0: "0 is the only number that is neither positive nor negative.",
        1: "1 is the only positive number that is neither prime nor composite.",
        2: "2 is the only even prime number.",
        3: "3 is the number of primary colours of light: red, green and blue.",
        4: "4 is the number of chambers in the human heart.",
        5: "5 is the number of Platonic solids.",
        6: "6 is the smallest perfect number: 1 + 2 + 3.",
        7: "7 is the number of days in a week.",
        8: "8 is the number of bits in a byte.",
        10: "10 is the base of the decimal system.",
        11: "11 is the number of players in a football team.",
        12: "12 is the number of months in a year.",
        13: "13 is the number of cards in each suit of a standard deck.",
        24: "24 is the number of hours in a day.",
        26: "26 is the number of letters in the English alphabet.",
        28: "28 is the second perfect number: 1 + 2 + 4 + 7 + 14.",
        42: "42 is the answer to the ultimate question of life, the universe and everything.",
        52: "52 is the number of cards in a standard deck without jokers.",
        60: "60 is the number of seconds in a minute.",
        64: "64 is the number of squares on a chessboard.",
        88: "88 is the number of keys on a standard piano.",
        100: "100 is the boiling point of water in degrees Celsius at sea level.",
    ]

    /// A true statement about `number`, which is at least 2.
    private static func arithmetic(of number: Int) -> String {
        let factors = primeFactors(of: number)
        if factors == [number] {
            let rank = (2...number).filter { primeFactors(of: $0).count == 1 }.count
            return "\(number) is the \(ordinal(rank)) prime number."
        }
        if let root = exactRoot(of: number, power: 2) { return "\(number) is the square of \(root)." }
        if let root = exactRoot(of: number, power: 3) { return "\(number) is the cube of \(root)." }
        if let side = (1...number).first(where: { $0 * ($0 + 1) / 2 == number }) {
            return "\(number) is the \(ordinal(side)) triangular number."
        }
        if fibonacci(upTo: number).contains(number) { return "\(number) is a Fibonacci number." }
        let product = factors.map(String.init).joined(separator: " × ")
        return "\(number) is \(product)."
    }

    private static func primeFactors(of number: Int) -> [Int] {
        var factors: [Int] = []
        var rest = number
        var divisor = 2
        while rest > 1 {
            while rest % divisor == 0 {
                factors.append(divisor)
                rest /= divisor
            }
            divisor += 1
        }
        return factors
    }

    private static func exactRoot(of number: Int, power: Int) -> Int? {
        (1...number).first { root in (0..<power).reduce(1) { product, _ in product * root } == number }
    }

    private static func fibonacci(upTo limit: Int) -> [Int] {
        var numbers = [1, 2]
        while let last = numbers.last, last < limit { numbers.append(last + numbers[numbers.count - 2]) }
        return numbers
    }

    private static func ordinal(_ rank: Int) -> String {
        let suffix: String
        switch (rank % 10, rank % 100) {
        case (_, 11...13): suffix = "th"
        case (1, _): suffix = "st"
        case (2, _): suffix = "nd"
        case (3, _): suffix = "rd"
        default: suffix = "th"
        }
        return "\(rank)\(suffix)"
    }
}
