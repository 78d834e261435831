import Repositories

/// Gives each generated meteorite its name: a running number per collecting site
/// (`Allan Hills 76004`), or a made-up town for a fall (`Korvano`), numbered when a town
/// name comes round again, so every name is unique.
struct MeteoriteNames {
    private static let syllables = [
        "ka", "ro", "ve", "lin", "do", "mar", "sa", "te", "bur", "ni", "go", "ra", "ul", "ze", "pol",
        "an", "ki", "mo", "tor", "es", "la", "vi", "ber", "no", "sha", "ten", "ko", "ri", "dal", "me",
    ]
    private var next: [String: Int] = [:]

    /// The name of the next meteorite from `site`.
    mutating func name(at site: MeteoriteSite, using random: inout SeededRandomNumberGenerator) -> String {
        switch site.naming {
        case .numbered(let first):
            let number = next[site.name, default: first]
            next[site.name] = number + Int.random(in: 1...3, using: &random)
            return "\(site.name) \(number)"
        case .town:
            let parts = Int.random(in: 2...3, using: &random)
            let town = (0..<parts).map { _ in Self.syllables.randomElement(using: &random)! }.joined()
            let name = town.prefix(1).uppercased() + town.dropFirst()
            let seen = next[name, default: 0]
            next[name] = seen + 1
            return seen == 0 ? name : "\(name) \(seen + 1)"
        }
    }
}
