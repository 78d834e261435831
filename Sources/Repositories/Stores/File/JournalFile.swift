#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A POSIX file descriptor of a store file, with the few calls the journal needs, each
/// turning a failure into a `RepositoryError` that names the file.
///
/// Not thread-safe: ``FileRepository`` uses it from its writer queue only.
final class JournalFile {
    var path: String
    private(set) var descriptor: Int32
    /// Failures a test planned for this file's calls; `nil` outside tests.
    var hooks: _FileTestHooks?
    /// The open file's device and inode, read once: a descriptor's identity never changes.
    private var ownIdentity: (device: UInt64, inode: UInt64)?

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        if descriptor >= 0 { _ = systemClose(descriptor) }
    }

    /// Opens `path` for reading and writing, failing if it does not exist.
    static func open(path: String) throws -> JournalFile {
        let descriptor = systemOpen(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { throw error("open the store file", path: path) }
        return JournalFile(path: path, descriptor: descriptor)
    }

    /// Opens `path` for reading and writing, creating it when absent.
    static func openOrCreate(path: String) throws -> JournalFile {
        let descriptor = systemOpen(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw error("open or create the file", path: path) }
        return JournalFile(path: path, descriptor: descriptor)
    }

    /// Creates `path`, failing if it exists.
    static func create(path: String) throws -> JournalFile {
        let descriptor = systemOpen(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw error("create the file", path: path) }
        return JournalFile(path: path, descriptor: descriptor)
    }

    /// Takes the exclusive lock without waiting; returns `false` when another open file
    /// description (in this process or another) holds it.
    func tryLock() throws -> Bool {
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK { return false }
            throw Self.error("lock the store file", path: path)
        }
        return true
    }

    /// The file's identity, to tell whether `path` still names this file.
    func identity() throws -> (device: UInt64, inode: UInt64) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Self.error("inspect the store file", path: path) }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// The identity of whatever `path` names now, or `nil` when nothing does.
    static func identity(of path: String) -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Whether `path` names a directory.
    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether anything exists at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Reads the whole file.
    func readAll() throws -> [UInt8] {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Self.error("inspect the store file", path: path) }
        let size = Int(info.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        try bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while done < size {
                let count = pread(descriptor, base + done, size - done, off_t(done))
                if count < 0 {
                    if errno == EINTR { continue }
                    throw Self.error("read the store file", path: path)
                }
                if count == 0 { break }
                done += count
            }
        }
        return done == size ? bytes : Array(bytes[..<done])
    }

    /// What `path` names now, compared with this open file.
    enum Placement {
        /// `path` names this file.
        case inPlace
        /// Nothing is at `path`: the file was deleted or moved away.
        case missing
        /// Another file is at `path`: one was renamed over this one, or made after it was deleted.
        case replaced
    }

    /// Whether `path` still names this file: the descriptor's device and inode (`fstat`,
    /// read once) against the path's (`stat`).
    func placement() throws -> Placement {
        let own: (device: UInt64, inode: UInt64)
        if let ownIdentity {
            own = ownIdentity
        } else {
            own = try identity()
            ownIdentity = own
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return .missing }
            throw Self.error("look up the store file", path: path)
        }
        return (UInt64(info.st_dev), UInt64(info.st_ino)) == own ? .inPlace : .replaced
    }

    /// The file's length now.
    func length() throws -> Int {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Self.error("inspect the store file", path: path) }
        return Int(info.st_size)
    }

    /// Writes all of `bytes` at `offset`.
    func write(_ bytes: [UInt8], at offset: Int) throws {
        var done = 0
        let fault = hooks?.takeFault(for: .write)
        try bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while done < buffer.count {
                if let fault, done >= min(fault.bytesFirst, buffer.count) {
                    errno = fault.code
                    throw Self.error("write to the store file", path: path)
                }
                let end = fault.map { min($0.bytesFirst, buffer.count) } ?? buffer.count
                let count = pwrite(descriptor, base + done, end - done, off_t(offset + done))
                if count < 0 {
                    if errno == EINTR { continue }
                    throw Self.error("write to the store file", path: path)
                }
                done += count
            }
        }
    }

    /// Cuts the file to `length` bytes.
    func truncate(to length: Int) throws {
        if let fault = hooks?.takeFault(for: .truncate) {
            errno = fault.code
            throw Self.error("truncate the store file", path: path)
        }
        while ftruncate(descriptor, off_t(length)) != 0 {
            if errno == EINTR { continue }
            throw Self.error("truncate the store file", path: path)
        }
    }

    /// Flushes the file's data to stable storage (on Apple platforms, through the drive's cache).
    func synchronize() throws {
        if let fault = hooks?.takeFault(for: .synchronize) {
            errno = fault.code
            throw Self.error("flush the store file to disk (fsync)", path: path)
        }
        #if canImport(Darwin)
            if fcntl(descriptor, F_FULLFSYNC) == 0 { return }
        #endif
        while fsync(descriptor) != 0 {
            if errno == EINTR { continue }
            throw Self.error("flush the store file to disk (fsync)", path: path)
        }
    }

    /// Closes the descriptor, releasing the lock.
    func close() {
        guard descriptor >= 0 else { return }
        _ = systemClose(descriptor)
        descriptor = -1
    }

    /// Flushes the directory entry of `path`, so a create or rename survives power loss.
    static func synchronizeDirectory(of path: String) throws {
        let directory = parentDirectory(of: path)
        let descriptor = systemOpen(directory, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw error("open the store's directory", path: directory) }
        defer { _ = systemClose(descriptor) }
        while fsync(descriptor) != 0 {
            if errno == EINTR { continue }
            if errno == EINVAL { return }  // file systems that cannot sync a directory
            throw error("flush the store's directory to disk", path: directory)
        }
    }

    /// Renames `source` over `destination` atomically.
    static func rename(_ source: String, over destination: String) throws {
        guard systemRename(source, destination) == 0 else {
            throw error("rename \(source) over", path: destination)
        }
    }

    /// Links `source` at `destination`; returns `false` when `destination` exists.
    static func link(_ source: String, to destination: String) throws -> Bool {
        if systemLink(source, destination) == 0 { return true }
        if errno == EEXIST { return false }
        throw error("create the store file", path: destination)
    }

    /// Removes `path`; succeeds when it does not exist.
    static func remove(_ path: String) throws {
        if unlink(path) == 0 || errno == ENOENT { return }
        throw error("remove", path: path)
    }

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// An error for the failed call just made, keeping `errno`'s message.
    static func error(_ action: String, path: String) -> RepositoryError {
        let code = errno
        let message = String(cString: strerror(code))
        let cause = SystemCallError(code: code, message: message)
        switch code {
        case ENOENT, ENOTDIR:
            return RepositoryError(
                .rejected, reason: "Could not \(action): \(message)",
                recovery: "Check that the directory exists and the path is right", location: path,
                underlying: cause)
        case EACCES, EPERM, EROFS:
            return RepositoryError(
                .rejected, reason: "Could not \(action): \(message)",
                recovery:
                    "Check the file's permissions, and that it is not immutable or on a read-only file system",
                location: path, underlying: cause)
        default:
            return RepositoryError(
                .unavailable, reason: "Could not \(action): \(message)",
                recovery: "Check the disk (space, health) and try again", location: path, underlying: cause)
        }
    }
}

// The system calls, under names that do not clash with the methods above.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    open(path, flags, mode)
}
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func systemRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
private func systemLink(_ source: String, _ destination: String) -> Int32 { link(source, destination) }
