/// One contender's figure in one workload.
struct ContenderFigure: Codable, Sendable {
    var contender: String
    var measurement: Measurement
    /// GRDB's time divided by this contender's: above 1, this contender is faster. `nil` for
    /// GRDB itself.
    var speedupOverGRDB: Double?
}

/// One row of the table: a workload and every contender's figure.
struct WorkloadResult: Codable, Sendable {
    var workload: String
    /// What one operation is: "run", "call", "save"; the times are per operation.
    var operation: String
    var figures: [ContenderFigure]

    /// Pairs each measurement with its contender, in order, and works out the ratios.
    init(workload: String, operation: String, contenders: [Contender], measurements: [Measurement]) {
        self.workload = workload
        self.operation = operation
        let reference = zip(contenders, measurements).first { $0.0.isReference }?.1
        figures = zip(contenders, measurements).map { contender, measurement in
            ContenderFigure(
                contender: contender.name, measurement: measurement,
                speedupOverGRDB: contender.isReference
                    ? nil : reference.map { $0.nanosecondsPerOperation / measurement.nanosecondsPerOperation }
            )
        }
    }
}

/// Everything a run measured, as `--json` writes it.
struct Report: Codable, Sendable {
    var entityCount: Int
    var runs: Int
    var quick: Bool
    var sqliteVersion: String
    /// `PRAGMA synchronous` on GRDB's writer connection after opening: 2 is FULL.
    var grdbSynchronous: Int
    /// The target for every ratio: ours at least as fast as GRDB.
    var targetSpeedup: Double
    var workloads: [WorkloadResult]
}
