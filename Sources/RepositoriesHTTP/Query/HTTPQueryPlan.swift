import Foundation
import Repositories

/// How one query runs against an API: the parameters sent, and what is left for the device.
struct HTTPQueryPlan<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
    /// The query.
    let query: Query<Entity>
    /// The conditions the API runs, checked again on every row it answers.
    let sent: [FieldConditionNode<Entity>]
    /// The conditions the API cannot run, run on the device.
    let unsent: [FieldConditionNode<Entity>]
    /// The parameters of `sent`.
    let conditionItems: [URLQueryItem]
    /// The parameters of the query's order, or `nil` when the device sorts.
    let orderItems: [URLQueryItem]?
    /// The parameters of the collection's own order, for reading when the device sorts.
    let collectionOrderItems: [URLQueryItem]

    /// The plan of `query` under `convention`, naming each declared field by `apiName`; a
    /// field named like one of `reserving` (the names a change feed's request uses) stays on
    /// the device.
    init(
        _ query: Query<Entity>, convention: HTTPQueryConvention, apiName: (String) -> String,
        reserving: Set<String> = []
    ) {
        self.query = query
        var sent: [FieldConditionNode<Entity>] = []
        var unsent: [FieldConditionNode<Entity>] = []
        var items: [URLQueryItem] = []
        var names: Set<String> = []
        // The names the request uses for its window and order are not the conditions'.
        var reserved = convention.reservedNames.union(convention.window(0, 1).map(\.name)).union(reserving)
        reserved.formUnion((convention.order([]) ?? []).map(\.name))
        for node in query.conditions.flatMap(\.node.conjuncts) {
            if Self.sendable(node, reserved, apiName),
                let written = convention.condition(HTTPQueryCondition(node, apiName: apiName)),
                convention.repeatedNamesAreAllRequired || names.isDisjoint(with: written.map(\.name))
            {
                sent.append(node)
                items += written
                names.formUnion(written.map(\.name))
            } else {
                unsent.append(node)
            }
        }
        self.sent = sent
        self.unsent = unsent
        self.conditionItems = convention.combine(items)
        var keys: [HTTPQuerySortKey] = []
        for key in query.sortKeys {
            guard let field = key.field else { break }
            keys.append(
                HTTPQuerySortKey(
                    HTTPQueryField(name: apiName(field.name), type: field.type, isOptional: field.isOptional),
                    descending: key.order == .descending))
        }
        self.orderItems = keys.count == query.sortKeys.count ? convention.order(keys) : nil
        self.collectionOrderItems = convention.order([]) ?? []
    }

    /// Whether `node` may go to the API at all: not when it reads a `Float` field (its JSON
    /// text is not the `Double` Swift compares) or one named like a parameter of the
    /// convention's own.
    private static func sendable(
        _ node: FieldConditionNode<Entity>, _ reserved: Set<String>, _ apiName: (String) -> String
    ) -> Bool {
        node.operands.allSatisfy { operand in
            guard let field = operand.field else { return false }
            return !field.isSinglePrecision && !reserved.contains(apiName(field.name))
        }
    }

    /// Whether the device filters what the API sends.
    var filtersOnDevice: Bool { !unsent.isEmpty || !query.predicates.isEmpty }

    /// Whether the API sorts, so its answer can be read only as far as the query needs.
    var sortsOnServer: Bool { orderItems != nil }

    /// Whether the offset and limit go to the API.
    var windowsOnServer: Bool { sortsOnServer && !filtersOnDevice }

    /// Whether `entity` passes what the device runs.
    func passesOnDevice(_ entity: Entity) -> Bool {
        unsent.allSatisfy { $0.matches(entity) } && query.predicates.allSatisfy { $0(entity) }
    }

    /// The first condition sent that `entity` does not meet, if any.
    func unmetSentCondition(_ entity: Entity) -> FieldConditionNode<Entity>? {
        sent.first { !$0.matches(entity) }
    }

    /// The query's description split by where each part runs against this API: what its
    /// parameters carry, and what the device runs.
    var description: String {
        var api: [String] = []
        var device: [String] = []
        if !sent.isEmpty { api.append("where " + sent.map(\.description).joined(separator: " && ")) }
        if !unsent.isEmpty { device.append("where " + unsent.map(\.description).joined(separator: " && ")) }
        if !query.predicates.isEmpty {
            device.append("\(query.predicates.count) filter\(query.predicates.count == 1 ? "" : "s")")
        }
        if !query.sortKeys.isEmpty {
            let keys = query.sortKeys.map { key in
                (key.field?.name ?? "a computed key") + (key.order == .descending ? " descending" : "")
            }
            let sort = "sorted by " + keys.joined(separator: ", then ")
            if sortsOnServer { api.append(sort) } else { device.append(sort) }
        }
        var window: [String] = []
        if query.offset != 0 { window.append("offset \(query.offset)") }
        if let limit = query.limit { window.append("limit \(limit)") }
        if windowsOnServer { api += window } else { device += window }
        var parts = ["API: " + (api.isEmpty ? "everything" : api.joined(separator: ", "))]
        if !device.isEmpty { parts.append("device: " + device.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}
