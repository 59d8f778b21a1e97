#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Where the cache database lives, and the permissions it lives with.
///
/// Cached rows are portal data a user was allowed to see; other local users must not read
/// them, so the directory is 0700 and the files 0600 whatever the umask says.
enum CacheLocation {
    /// The file name inside a cache directory.
    static let fileName = "cache.sqlite"

    /// `$SCREENS_PIPE_CACHE_DIR`, else `$XDG_CACHE_HOME/screens-pipe`, else `~/.cache/screens-pipe`.
    static func defaultDirectory(environment: [String: String]) -> String {
        if let directory = environment["SCREENS_PIPE_CACHE_DIR"], !directory.isEmpty {
            return directory
        }
        // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return join(xdg, "screens-pipe")
        }
        return join(join(homeDirectory(environment: environment), ".cache"), "screens-pipe")
    }

    static func defaultPath(environment: [String: String]) -> String {
        join(defaultDirectory(environment: environment), fileName)
    }

    /// Creates the missing directories of `directory` with mode 0700. With `owned`, the
    /// directory is the cache's own (the default location) and is tightened to 0700 even if
    /// it already existed; a directory the user named as the parent of a file is left alone.
    static func prepareDirectory(_ directory: String, owned: Bool) throws(ScreensPipeError) {
        var missing: [String] = []
        var current = directory
        while !current.isEmpty, current != "/", !exists(current) {
            missing.append(current)
            current = parent(of: current)
        }
        for path in missing.reversed() {
            if mkdir(path, 0o700) != 0, errno != EEXIST {
                throw failure("cannot create the cache directory \(path)")
            }
            // mkdir's mode is filtered by the umask; chmod is not.
            if chmod(path, 0o700) != 0 { throw failure("cannot set mode 0700 on \(path)") }
        }
        if owned, missing.isEmpty, chmod(directory, 0o700) != 0 {
            throw failure("cannot set mode 0700 on \(directory)")
        }
    }

    /// Creates `path` if needed and sets it to 0600 before SQLite opens it. SQLite creates
    /// the -wal and -shm files with the main file's mode, so they follow.
    static func prepareFile(_ path: String) throws(ScreensPipeError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("cannot open the cache database \(path)") }
        defer { close(descriptor) }
        if fchmod(descriptor, 0o600) != 0 { throw failure("cannot set mode 0600 on \(path)") }
    }

    /// Sets the companion files SQLite made (-wal, -shm) to 0600, in case they predate us.
    static func tightenCompanions(of path: String) {
        for suffix in ["-wal", "-shm"] where exists(path + suffix) {
            _ = chmod(path + suffix, 0o600)
        }
    }

    static func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }

    /// The size of a file in bytes, 0 when it does not exist.
    static func fileSize(_ path: String) -> Int {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : 0
    }

    static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    private static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    private static func homeDirectory(environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        if let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir {
            return String(cString: directory)
        }
        return "."
    }

    private static func failure(_ message: String) -> ScreensPipeError {
        let reason = String(cString: strerror(errno))
        return ScreensPipeError(.cache, "\(message): \(reason)")
    }
}
