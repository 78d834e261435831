import Testing

@testable import NumberFacts

/// The simulated API's facts: one for each number from 0 to 100, the same on every run.
@Suite struct NumberFactCatalogTests {
    @Test func everyNumberFrom0To100HasOneFactThatStartsWithIt() {
        let facts = NumberFactCatalog.facts
        #expect(facts.map(\.id) == Array(0...100))
        for fact in facts {
            #expect(fact.text.hasPrefix("\(fact.id) is "), "fact \(fact.id): \(fact.text)")
            #expect(fact.text.hasSuffix("."), "fact \(fact.id): \(fact.text)")
        }
        #expect(Set(facts.map(\.text)).count == facts.count, "no two numbers share a fact")
    }

    @Test(arguments: [
        (7, "7 is the number of days in a week."),
        (9, "9 is the square of 3."),
        (21, "21 is the 6th triangular number."),
        (27, "27 is the cube of 3."),
        (34, "34 is a Fibonacci number."),
        (97, "97 is the 25th prime number."),
        (98, "98 is 2 × 7 × 7."),
    ])
    func factsAreTrueStatements(number: Int, text: String) {
        #expect(NumberFactCatalog.fact(about: number)?.text == text)
    }

    @Test(arguments: [-1, 101, Int.min])
    func numbersOutsideTheRangeHaveNoFact(number: Int) {
        #expect(NumberFactCatalog.fact(about: number) == nil)
    }
}
