import Foundation
import Repositories

/// One random sequence of a ``SyncConformance`` run: its remote, its devices, what they
/// did, and the checks at the end.
struct _SyncSequence<Remote: Repository, Local: Repository>
where
    Local.Entity == Remote.Entity, Local.ID == Remote.ID, Remote.Entity: Codable & Equatable,
    Remote.ID: Codable
{
    typealias Suite = SyncConformance<Remote, Local>
    typealias Entity = Remote.Entity
    typealias ID = Remote.ID

    struct Device {
        var directory: URL
        var stores: SyncDeviceStores<Local>
        var link: _SyncLink<Remote>
        var stack: Suite.Stack
    }

    /// One operation as the failure shows it, with the indexes it touched (none: a sync or
    /// a restart, shown for every entity).
    struct Step {
        var text: String
        var indexes: [Int]
    }

    /// The most operations a violation lists.
    static var shownOperations: Int { 200 }

    let suite: Suite
    let number: Int
    let seed: UInt64
    let remote: Remote
    let log = _SyncLog<Entity>()
    let root: URL
    var devices: [Device] = []
    var steps: [Step] = []
    var random: SeededRandomNumberGenerator
    /// The index each ID was made from, and the entities made, to name them briefly.
    var indexOf: [ID: Int] = [:]
    var made: [(index: Int, revision: Int, entity: Entity)] = []

    init(_ suite: Suite, number: Int, seed: UInt64) async throws {
        self.suite = suite
        self.number = number
        self.seed = seed
        random = SeededRandomNumberGenerator(seed: seed &+ UInt64(number))
        root = (suite.options.directory ?? FileManager.default.temporaryDirectory).appending(
            path: "SyncConformance-\(UUID().uuidString)", directoryHint: .isDirectory)
        remote = try await Self.setUp("makeRemote()") { try await suite.makeRemote() }
        for index in 0..<max(1, suite.options.entityCount) {
            indexOf[suite.makeEntity(index, 0).id] = index
        }
        for device in 0..<max(1, suite.options.devices) {
            let directory = root.appending(path: "device-\(device + 1)", directoryHint: .isDirectory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let stores = try await Self.setUp("openDevice(\(directory.path))") {
                try await suite.openDevice(directory)
            }
            let weather = _SyncWeather<Entity>(
                lostAnswerProbability: suite.options.lostAnswerProbability,
                halfAppliedBatchProbability: suite.options.halfAppliedBatchProbability,
                normalize: suite.options.normalize, seed: seed &+ UInt64(number) &* 104_729)
            let link = _SyncLink(remote, device: device, log: log, weather: weather)
            devices.append(
                Device(directory: directory, stores: stores, link: link, stack: stack(device, link, stores)))
        }
    }

    private static func setUp<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw ConformanceSetupError(message: "SyncConformance: \(what) threw \(error)")
        }
    }

    private func stack(_ device: Int, _ link: _SyncLink<Remote>, _ stores: SyncDeviceStores<Local>)
        -> Suite.Stack
    {
        var conflicts = suite.conflicts
        if case .merge(let resolve) = conflicts {
            conflicts = .merge { [log] base, local, remote in
                let merged = resolve(base, local, remote)
                log.append(.merged, device: device, [(merged.id, merged)])
                return merged
            }
        }
        return link.offlineFirst(
            local: stores.local, outbox: stores.outbox, conflicts: conflicts, automaticSync: nil)
    }

    // MARK: Playing

    /// Plays the sequence, syncs every device twice round, and returns the laws it broke.
    mutating func play() async throws -> [SyncConformanceViolation] {
        let options = suite.options
        for step in 0..<max(0, options.operationsPerSequence) {
            let device = Int.random(in: 0..<devices.count, using: &random)
            devices[device].link.online =
                Double.random(in: 0..<1, using: &random) >= options.offlineProbability
            let roll = Double.random(in: 0..<1, using: &random)
            if roll < options.restartProbability {
                try await restart(device)
            } else if roll < options.restartProbability + options.syncProbability {
                await sync(device)
            } else {
                await write(device, revision: step * 8)
            }
        }
        if let beforeFinalSync = options.beforeFinalSync {
            try await Self.setUp("beforeFinalSync") { try await beforeFinalSync(remote) }
        }
        for device in devices { device.link.calmDown() }
        var violations: [SyncConformanceViolation] = []
        for round in 1...2 {
            for device in devices.indices {
                devices[device].link.online = true
                do {
                    try await devices[device].stack.sync()
                    steps.append(Step(text: "final round \(round): device \(device + 1) sync()", indexes: []))
                } catch {
                    steps.append(
                        Step(
                            text: "final round \(round): device \(device + 1) sync() threw \(error)",
                            indexes: []))
                    violations.append(
                        violation(
                            .finalSyncsSucceed,
                            "device \(device + 1)'s sync() in round \(round) threw \(error)"))
                }
            }
        }
        violations += await check()
        try await tearDown()
        return violations
    }

    private mutating func restart(_ device: Int) async throws {
        let directory = devices[device].directory
        try await Self.setUp("closing device \(device + 1)'s stores") {
            try await devices[device].stores.close()
        }
        let stores = try await Self.setUp("openDevice(\(directory.path)) after a restart") {
            try await suite.openDevice(directory)
        }
        devices[device].stores = stores
        devices[device].stack = stack(device, devices[device].link, stores)
        steps.append(Step(text: "device \(device + 1) restarts", indexes: []))
    }

    private mutating func sync(_ device: Int) async {
        let network = devices[device].link.online ? "online" : "offline"
        do {
            try await devices[device].stack.sync()
            steps.append(Step(text: "device \(device + 1) (\(network)) sync()", indexes: []))
        } catch {
            steps.append(Step(text: "device \(device + 1) (\(network)) sync() threw \(error)", indexes: []))
        }
    }

    private mutating func write(_ device: Int, revision: Int) async {
        let count = max(1, suite.options.entityCount)
        let kind = Int.random(in: 0..<100, using: &random)
        let size = kind < 70 ? 1 : min(count, Int.random(in: 2...3, using: &random))
        var indexes: [Int] = []
        while indexes.count < size {
            let index = Int.random(in: 0..<count, using: &random)
            if !indexes.contains(index) { indexes.append(index) }
        }
        let deleting = (50..<70).contains(kind) || kind >= 85
        let changes: [(index: Int, entity: Entity?)] = indexes.enumerated().map { offset, index in
            guard !deleting else { return (index, nil) }
            let entity = suite.makeEntity(index, revision + offset)
            made.append((index, revision + offset, entity))
            return (index, entity)
        }
        let stack = devices[device].stack
        let ids = indexes.map { suite.makeEntity($0, 0).id }
        let text: String
        if deleting {
            text = ids.count == 1 ? "delete(id: #\(indexes[0]))" : "delete(ids: \(indexes.map { "#\($0)" }))"
        } else {
            let names = indexes.enumerated().map { "⟨#\($0.element) r\(revision + $0.offset)⟩" }
            text =
                names.count == 1
                ? "save(\(names[0]))" : "save(contentsOf: [\(names.joined(separator: ", "))])"
        }
        let label = "device \(device + 1) \(text)"
        do {
            if deleting {
                if ids.count == 1 {
                    try await stack.delete(id: ids[0])
                } else {
                    try await stack.delete(ids: ids)
                }
            } else {
                let entities = changes.compactMap(\.entity)
                if entities.count == 1 {
                    try await stack.save(entities[0])
                } else {
                    try await stack.save(contentsOf: entities)
                }
            }
            log.append(.acknowledged, device: device, zip(ids, changes).map { ($0, $1.entity) })
            steps.append(Step(text: label, indexes: indexes))
        } catch {
            steps.append(Step(text: "\(label) threw \(error)", indexes: indexes))
        }
    }

    private func tearDown() async throws {
        for device in devices {
            try await Self.setUp("closing device stores at the end") { try await device.stores.close() }
        }
        try FileManager.default.removeItem(at: root)
    }

    // MARK: Naming

    func name(_ entity: Entity?) -> String {
        guard let entity else { return "nothing" }
        if let found = made.last(where: { $0.entity == entity }) {
            return "⟨#\(found.index) r\(found.revision)⟩"
        }
        let text = String(describing: entity)
        let brief = text.count > 160 ? text.prefix(160) + "…" : Substring(text)
        return "⟨#\(indexOf[entity.id].map(String.init) ?? "?") \(brief)⟩"
    }

    func name(_ id: ID) -> String { "#\(indexOf[id].map(String.init) ?? "\(id)")" }

    func violation(_ law: SyncConformanceLaw, _ message: String, about id: ID? = nil)
        -> SyncConformanceViolation
    {
        let index = id.flatMap { indexOf[$0] }
        let shown = steps.enumerated().filter {
            index == nil || $0.element.indexes.isEmpty || $0.element.indexes.contains(index ?? -1)
        }
        var operations = shown.suffix(Self.shownOperations).map { "\($0.offset + 1). \($0.element.text)" }
        if shown.count > Self.shownOperations {
            operations.insert("(\(shown.count - Self.shownOperations) earlier operations not shown)", at: 0)
        }
        return SyncConformanceViolation(
            law: law, message: message, seed: seed, sequence: number, operations: operations)
    }
}
