import Foundation

/// One index's entity under two spellings of its ID, `==` to each other: what the
/// `equalIDsAreOneEntity` law saves, fetches and deletes under.
struct RespelledIDs<Entity: Identifiable & Equatable & Sendable>: Sendable where Entity.ID: Sendable {
    /// How many revisions the law uses.
    static var revisions: Int { 4 }

    /// The index whose ID is spelled two ways.
    let index: Int
    /// `makeEntity(index, revision)` for each revision, with its ID as given.
    let originals: [Entity]
    /// The same entities under the other spelling of the ID.
    let respelled: [Entity]

    /// The entity at `revision` under spelling 0 (the original) or 1 (the other).
    func entity(_ revision: Int, spelling: Int) -> Entity {
        spelling == 0 ? originals[revision] : respelled[revision]
    }

    /// The ID under spelling 0 or 1.
    func id(spelling: Int) -> Entity.ID { entity(0, spelling: spelling).id }

    /// How the two spellings read, with every character past ASCII as its Unicode scalars.
    var described: String {
        let first = Self.spelled(id(spelling: 0))
        let second = Self.spelled(id(spelling: 1))
        if first == second { return "#\(index)'s ID, \(first), has one spelling" }
        return "#\(index)'s ID spelled two ways: \(first) and \(second)"
    }

    /// Whether `first` and `second` are written differently: their descriptions differ in
    /// Unicode scalars (as Strings they may be equal).
    static func spelledDifferently(_ first: Entity.ID, _ second: Entity.ID) -> Bool {
        !String(describing: first).unicodeScalars.elementsEqual(String(describing: second).unicodeScalars)
    }

    /// `id` as text, every character past ASCII written as `\u{…}`, so two spellings that
    /// look alike read differently.
    static func spelled(_ id: Entity.ID) -> String {
        var result = ""
        for scalar in String(describing: id).unicodeScalars {
            if scalar.isASCII {
                result.unicodeScalars.append(scalar)
            } else {
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            }
        }
        return result
    }
}

extension RespelledIDs {
    /// Why the suite could not spell an ID two ways; the law is skipped with it.
    struct Unavailable: Error {
        var reason: String
    }

    /// The pair for an author's `respell` closure, checked.
    ///
    /// - Throws: ``LawBroken`` when a respelled ID is not `==` to the original, hashes
    ///   differently, or is spelled alike.
    init(
        index: Int, makeEntity: @escaping @Sendable (Int, Int) -> Entity,
        respell: @escaping @Sendable (Int, Int) -> Entity
    ) throws {
        let revisions = 0..<Self.revisions
        let originals = revisions.map { makeEntity(index, $0) }
        let respelled = revisions.map { respell(index, $0) }
        for revision in revisions {
            let original = originals[revision].id
            let other = respelled[revision].id
            guard other == original, other.hashValue == original.hashValue else {
                throw LawBroken(
                    "makeEntityWithRespelledID(\(index), \(revision)) has the ID \(Self.spelled(other)), which is not == to makeEntity's \(Self.spelled(original)) (or hashes differently); it must return the same ID spelled another way"
                )
            }
            guard Self.spelledDifferently(other, original) else {
                throw LawBroken(
                    "makeEntityWithRespelledID(\(index), \(revision)) spells its ID \(Self.spelled(other)) exactly as makeEntity does; it must spell it another way, such as a string in another Unicode normalization form"
                )
            }
        }
        self.init(index: index, originals: originals, respelled: respelled)
    }

    /// The pair the suite makes for itself, or why it cannot: the one spelling of an integer
    /// or UUID ID, or a String ID with an accented letter respelled in the other
    /// normalization form through the entity's `Codable` form.
    ///
    /// - Parameter indexes: the indexes to search for a String ID that has another spelling.
    static func builtIn(
        indexes: Range<Int>, makeEntity: @escaping @Sendable (Int, Int) -> Entity
    ) -> Result<RespelledIDs, Unavailable> {
        let revisions = 0..<Self.revisions
        if Entity.ID.self is any FixedWidthInteger.Type || Entity.ID.self == UUID.self {
            let originals = revisions.map { makeEntity(indexes.lowerBound, $0) }
            return .success(
                RespelledIDs(index: indexes.lowerBound, originals: originals, respelled: originals))
        }
        guard Entity.ID.self == String.self else {
            return .failure(
                Unavailable(
                    reason:
                        "the ID type \(Entity.ID.self) is not one the suite can spell two ways; pass ConformanceOptions.makeEntityWithRespelledID"
                ))
        }
        guard
            let index = indexes.first(where: { index in
                (makeEntity(index, 0).id as? String).flatMap(otherSpelling) != nil
            })
        else {
            return .failure(
                Unavailable(
                    reason:
                        "the String IDs makeEntity gives (such as \(Self.spelled(makeEntity(indexes.lowerBound, 0).id))) have one Unicode spelling each; give them an accented letter, such as \"é\", or pass ConformanceOptions.makeEntityWithRespelledID"
                ))
        }
        let originals = revisions.map { makeEntity(index, $0) }
        do {
            let respelled = try originals.map(respell)
            return .success(RespelledIDs(index: index, originals: originals, respelled: respelled))
        } catch {
            let why = (error as? Unavailable)?.reason ?? "\(error)"
            return .failure(
                Unavailable(
                    reason:
                        "the suite could not respell the ID of makeEntity(\(index), _) through its Codable form (\(why)); pass ConformanceOptions.makeEntityWithRespelledID"
                ))
        }
    }

    /// `id` in the Unicode normalization form it is not in, or `nil` when both forms are
    /// `id` itself (as for ASCII).
    static func otherSpelling(of id: String) -> String? {
        let composed = id.precomposedStringWithCanonicalMapping
        let other =
            composed.unicodeScalars.elementsEqual(id.unicodeScalars)
            ? id.decomposedStringWithCanonicalMapping : composed
        return other.unicodeScalars.elementsEqual(id.unicodeScalars) ? nil : other
    }

    /// `entity` with its String ID in the other normalization form, made by replacing the
    /// `"id"` member of its JSON and decoding that.
    ///
    /// - Throws: ``Unavailable`` when the entity is not `Codable`, its JSON has no single
    ///   `"id"` member holding its ID, or what decodes does not carry the new spelling; the
    ///   coders' errors.
    static func respell(_ entity: Entity) throws -> Entity {
        guard let encodable = entity as? any Encodable, let decodable = Entity.self as? any Decodable.Type
        else {
            throw Unavailable(reason: "the entity is not Codable")
        }
        guard let id = entity.id as? String, let newID = otherSpelling(of: id) else {
            throw Unavailable(reason: "its ID has no other spelling")
        }
        let encoder = JSONEncoder()
        let body = try encoder.encode(encodable)
        let member = Data(#""id":"#.utf8) + (try encoder.encode(id))
        guard let range = body.range(of: member),
            body.range(of: member, in: range.upperBound..<body.endIndex) == nil
        else {
            throw Unavailable(reason: "its JSON has no single \"id\" member holding its ID")
        }
        var respelledBody = body
        respelledBody.replaceSubrange(range, with: Data(#""id":"#.utf8) + (try encoder.encode(newID)))
        guard let respelled = try decode(decodable, from: respelledBody) as? Entity,
            let respelledID = respelled.id as? String,
            respelledID.unicodeScalars.elementsEqual(newID.unicodeScalars)
        else {
            throw Unavailable(reason: "the entity decoded from it does not carry the new spelling")
        }
        return respelled
    }

    private static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try JSONDecoder().decode(type, from: data)
    }
}
