import Foundation

/// The machine and build a run was measured on, printed with every report.
struct Machine: Codable, Sendable {
    var cores: Int
    var memoryGiB: Double
    var operatingSystem: String
    var swift: String
    var configuration: String

    static var current: Machine {
        let info = ProcessInfo.processInfo
        #if DEBUG
            let configuration = "debug (figures are only meaningful with -c release)"
        #else
            let configuration = "release"
        #endif
        #if compiler(>=6.3)
            let swift = "Swift 6.3 or later"
        #elseif compiler(>=6.2)
            let swift = "Swift 6.2"
        #elseif compiler(>=6.1)
            let swift = "Swift 6.1"
        #else
            let swift = "Swift 6.0"
        #endif
        return Machine(
            cores: info.activeProcessorCount, memoryGiB: Double(info.physicalMemory) / 1_073_741_824,
            operatingSystem: info.operatingSystemVersionString, swift: swift, configuration: configuration)
    }

    var summary: String {
        String(
            format: "%d cores, %.0f GiB, %@, %@, %@ build", cores, memoryGiB, operatingSystem, swift,
            configuration)
    }
}
