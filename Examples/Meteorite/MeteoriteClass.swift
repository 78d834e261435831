/// A meteorite classification and how common it is in NASA's list.
struct MeteoriteClass: Weighted {
    var name: String
    var weight: Int

    /// The commonest classes of NASA's list, with their counts there.
    static let all = WeightedTable(
        [
            ("L6", 8_285), ("H5", 7_142), ("L5", 4_796), ("H6", 4_528), ("H4", 4_211), ("LL5", 2_766),
            ("LL6", 2_043), ("L4", 1_253), ("H4/5", 428), ("CM2", 416), ("H3", 386), ("L3", 374),
            ("CO3", 335), ("Ureilite", 300), ("Iron, IIIAB", 285), ("LL4", 273), ("CV3", 238),
            ("Howardite", 220), ("Eucrite-pmict", 180), ("Diogenite", 175), ("LL3", 160),
            ("Iron, IAB-MG", 150), ("Mesosiderite", 120), ("Pallasite", 80), ("Lunar (feldsp. breccia)", 60),
            ("Martian (shergottite)", 50),
        ].map { MeteoriteClass(name: $0.0, weight: $0.1) })
}
