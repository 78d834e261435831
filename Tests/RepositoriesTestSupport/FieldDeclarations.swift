import Repositories

/// One stored shape under several declarations of its fields, for the tests of a store whose
/// columns follow the declaration as it changes (SQLite, PostgreSQL).
public enum FieldDeclarations {
    /// The shape, declaring no field.
    public struct Shelf: Identifiable, Codable, Sendable, Equatable {
        /// The ID.
        public var id: Int
        /// A name.
        public var name: String
        /// A year.
        public var year: Int

        /// Makes the shape from its values.
        public init(id: Int, name: String, year: Int) {
            (self.id, self.name, self.year) = (id, name, year)
        }
    }

    /// The shape, declaring `name`.
    public struct NameOnly: Identifiable, Codable, Sendable, Equatable, QueryableEntity {
        /// The ID.
        public var id: Int
        /// A name.
        public var name: String
        /// A year.
        public var year: Int
        /// The declared fields.
        public static let queryableFields = [QueryableField<NameOnly>(\.name, name: "name")]

        /// Makes the shape from its values.
        public init(id: Int, name: String, year: Int) {
            (self.id, self.name, self.year) = (id, name, year)
        }
    }

    /// The shape, declaring `name` and `year`.
    public struct NameAndYear: Identifiable, Codable, Sendable, Equatable, QueryableEntity {
        /// The ID.
        public var id: Int
        /// A name.
        public var name: String
        /// A year.
        public var year: Int
        /// The declared fields.
        public static let queryableFields = [
            QueryableField<NameAndYear>(\.name, name: "name"), QueryableField(\.year, name: "year"),
        ]

        /// Makes the shape from its values.
        public init(id: Int, name: String, year: Int) {
            (self.id, self.name, self.year) = (id, name, year)
        }
    }

    /// The shape, declaring `year` as text: a change of type.
    public struct YearAsText: Identifiable, Codable, Sendable, Equatable, QueryableEntity {
        /// The ID.
        public var id: Int
        /// A name.
        public var name: String
        /// A year.
        public var year: Int
        /// The year as text, declared as a field.
        public var yearText: String { String(year) }
        /// The declared fields.
        public static let queryableFields = [QueryableField<YearAsText>(\.yearText, name: "year")]
    }

    /// A shape without `year`, declaring nothing.
    public struct Loose: Identifiable, Codable, Sendable {
        /// The ID.
        public var id: Int
        /// A name.
        public var name: String

        /// Makes the shape from its values.
        public init(id: Int, name: String) {
            (self.id, self.name) = (id, name)
        }
    }

    /// A shape that needs `year`, which rows ``Loose`` wrote lack, and declares it.
    public struct Strict: Identifiable, Codable, Sendable, QueryableEntity {
        /// The ID.
        public var id: Int
        /// A name.
        public var name: String
        /// A year.
        public var year: Int
        /// The declared fields.
        public static let queryableFields = [QueryableField<Strict>(\.year, name: "year")]
    }
}
