import ExampleSupport
import Foundation

/// The UserDefaults suite the run keeps people in, so the user's standard defaults are never
/// touched.
///
/// Where a suite lives: on Linux (swift-corelibs-foundation) in
/// `$XDG_CONFIG_HOME/<suite>.plist`, or `~/.config/<suite>.plist` when `XDG_CONFIG_HOME` is
/// unset; on Apple platforms in `~/Library/Preferences/<suite>.plist` (inside the app's
/// container when sandboxed). A suite cannot be put in a directory of one's choosing, so
/// without `--data-dir` the run uses a suite of its own name and removes it at the end with
/// `removePersistentDomain(forName:)`, which on Linux deletes the file as well; with
/// `--data-dir` it uses one fixed suite and keeps it, so a second run finds the people.
struct PersonDefaults {
    /// The suite kept between runs under `--data-dir`.
    static let keptSuiteName = "Repositories.Examples.Person"

    /// The suite's name.
    let suiteName: String
    /// The suite.
    let defaults: UserDefaults
    /// Whether ``close()`` removes the suite's data.
    let isTemporary: Bool

    /// The suite `options` ask for: a fresh one, or the kept one under `--data-dir`.
    ///
    /// - Throws: ``PersonDefaultsError`` when UserDefaults refuses the suite name.
    init(options: ExampleOptions) throws {
        let isTemporary = options.dataDirectory == nil
        try self.init(
            suiteName: isTemporary ? "\(Self.keptSuiteName).\(UUID().uuidString)" : Self.keptSuiteName,
            isTemporary: isTemporary)
    }

    /// The suite `suiteName`, whose data ``close()`` removes when `isTemporary`.
    ///
    /// - Throws: ``PersonDefaultsError`` when UserDefaults refuses the suite name.
    init(suiteName: String, isTemporary: Bool) throws {
        guard let defaults = UserDefaults(suiteName: suiteName) else {
            throw PersonDefaultsError(suiteName: suiteName)
        }
        self.suiteName = suiteName
        self.isTemporary = isTemporary
        self.defaults = defaults
    }

    /// The suite's property list on this platform.
    var fileURL: URL {
        #if os(Linux) || os(Android) || os(Windows)
            let configuration = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"].map {
                URL(fileURLWithPath: $0, isDirectory: true)
            }
            let directory =
                configuration
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        #else
            let directory = FileManager.default.homeDirectoryForCurrentUser
                .appendingPathComponent("Library/Preferences")
        #endif
        return directory.appendingPathComponent("\(suiteName).plist")
    }

    /// Writes the suite to its file now rather than in the background, and checks that the
    /// file is where ``fileURL`` says.
    ///
    /// - Throws: ``StoryFailure`` when there is no file there (the suite holds nothing, or
    ///   this platform keeps it elsewhere), so that the run never says a file it did not
    ///   see was removed.
    func synchronize() throws {
        defaults.synchronize()
        guard FileManager.default.fileExists(atPath: fileURL.path) else {
            throw StoryFailure(
                "UserDefaults wrote no file for the suite \(suiteName) at \(fileURL.path); "
                    + "the suite is empty, or this platform keeps it elsewhere")
        }
    }

    /// Removes a temporary suite's values and file; keeps the one used with `--data-dir`.
    ///
    /// - Throws: ``StoryFailure`` when the suite's file is still there afterwards.
    func close() throws {
        guard isTemporary else { return }
        defaults.removePersistentDomain(forName: suiteName)
        defaults.synchronize()
        guard !FileManager.default.fileExists(atPath: fileURL.path) else {
            throw StoryFailure(
                "removePersistentDomain(forName:) left the suite's file at \(fileURL.path); delete it by hand"
            )
        }
    }
}

/// UserDefaults refused a suite name (it does for the app's own bundle ID and the global domain).
struct PersonDefaultsError: Error, CustomStringConvertible {
    /// The name refused.
    let suiteName: String

    /// Names the suite and what to do.
    var description: String {
        "UserDefaults refused the suite \"\(suiteName)\"; choose another suite name"
    }
}
