import Synchronization
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
package enum CacheLocation {
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

    package static func defaultPath(environment: [String: String]) -> String {
        join(defaultDirectory(environment: environment), fileName)
    }

    /// Set (to anything) in the variables a run hands its stores when its environment's
    /// ``PipelineEnvironment/cacheDirectory`` is `.fromVariables`: the default location is
    /// then only what the variables name, never the home directory. Not an environment
    /// variable (no shell can set a name with a colon); the command line never sets it.
    package static let variablesOnlyKey = "screens-pipe:cache-directory-from-variables-only"

    /// The default cache file of a run, or a configuration error when its environment names
    /// no directory (``PipelineEnvironment/CacheDirectory/fromVariables`` with neither
    /// variable set): a library writes nothing under the home directory unless asked.
    package static func runPath(environment: [String: String]) throws(ScreensPipeError) -> String {
        if environment[variablesOnlyKey] != nil, environment["SCREENS_PIPE_CACHE_DIR"]?.isEmpty ?? true,
            !(environment["XDG_CACHE_HOME"]?.hasPrefix("/") ?? false)
        {
            throw ScreensPipeError.configuration(
                "the pipeline's cache (or its list state, journal or locks) has no location: its cache: section names no path:, "
                    + "and the environment names no cache directory; set PipelineEnvironment.cacheDirectory "
                    + "(.directory(path), or .userCache for ~/.cache/screens-pipe), SCREENS_PIPE_CACHE_DIR in its variables, or cache.path")
        }
        return defaultPath(environment: environment)
    }

    /// Creates the missing directories of `directory` with mode 0700. With `owned`, the
    /// directory is the cache's own (the default location) and is tightened to 0700 even if
    /// it already existed; a directory the user named as the parent of a file is left alone.
    package static func prepareDirectory(_ directory: String, owned: Bool) throws(ScreensPipeError) {
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
        guard owned else { return }
        // Like ssh: a cache directory someone else owns or may write to could swap the
        // database under us, so it is refused, not used silently. The mode is set through
        // a descriptor opened without following a symlink.
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if descriptor < 0 {
            guard errno == ELOOP || errno == ENOTDIR else { throw failure("cannot open the cache directory \(directory)") }
            // A symlinked cache directory is used as it is: checked, never chmodded through the link.
            var status = stat()
            guard stat(directory, &status) == 0 else { throw failure("cannot inspect the cache directory \(directory)") }
            try requireSafeOwnership(status, path: directory, what: "cache directory")
            return
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure("cannot inspect the cache directory \(directory)") }
        try requireSafeOwnership(status, path: directory, what: "cache directory")
        if missing.isEmpty, fchmod(descriptor, 0o700) != 0 {
            throw failure("cannot set mode 0700 on \(directory)")
        }
    }

    /// Refuses what another user owns or may write to, saying which and why.
    static func requireSafeOwnership(_ status: stat, path: String, what: String) throws(ScreensPipeError) {
        if status.st_uid != geteuid() {
            throw ScreensPipeError(
                .cache,
                "refusing the \(what) \(path): it is owned by uid \(status.st_uid), not by this user (uid \(geteuid()))")
        }
        if status.st_mode & 0o022 != 0 {
            throw ScreensPipeError(
                .cache,
                "refusing the \(what) \(path): it is writable by group or others (mode \(String(status.st_mode & 0o777, radix: 8))); chmod go-w it")
        }
    }

    /// Creates `path` if needed and sets it to 0600 before SQLite opens it. SQLite creates
    /// the -wal and -shm files with the main file's mode, so they follow.
    package static func prepareFile(_ path: String) throws(ScreensPipeError) {
        // An existing database is never open()ed and close()d here: closing any descriptor of
        // a file drops all of this process's POSIX locks on it, SQLite's included, and another
        // store of this process (two pipelines of one service sharing a cache) may hold them.
        // A missing file is created under a process-wide lock that every store passes before
        // its pool opens the file, so no store of this process holds a lock on it yet.
        let creationErrno: Int32 = fileCreation.withLock { _ in
            let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { return errno }
            close(descriptor)
            return 0
        }
        if creationErrno != 0, creationErrno != EEXIST {
            errno = creationErrno
            throw failure("cannot create the cache database \(path)")
        }
        var status = stat()
        guard lstat(path, &status) == 0 else { throw failure("cannot inspect the cache database \(path)") }
        if status.st_mode & S_IFMT == S_IFLNK {
            throw ScreensPipeError.cache("refusing the cache database \(path): it is a symbolic link; name the file itself")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw ScreensPipeError.cache("refusing the cache database \(path): it is not a regular file")
        }
        try requireSafeOwnership(status, path: path, what: "cache database")
        if status.st_mode & 0o777 != 0o600, fchmodat(AT_FDCWD, path, 0o600, AT_SYMLINK_NOFOLLOW) != 0 {
            throw failure("cannot set mode 0600 on \(path)")
        }
    }

    /// Serialises the creation of new database files within this process (see ``prepareFile(_:)``).
    private static let fileCreation = Mutex<Void>(())

    /// Sets the companion files SQLite made (-wal, -shm) to 0600, in case they predate us.
    package static func tightenCompanions(of path: String) {
        // Not open()+close(): closing any descriptor of a file drops this process's POSIX
        // locks on it, SQLite's included, and another process would then reset the -shm it
        // has mapped (SIGBUS). fchmodat without following a link works on the path.
        for suffix in ["-wal", "-shm"] {
            _ = fchmodat(AT_FDCWD, path + suffix, 0o600, AT_SYMLINK_NOFOLLOW)
        }
    }

    static func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }

    /// The size of a file in bytes, 0 when it does not exist.
    package static func fileSize(_ path: String) -> Int {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : 0
    }

    package static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    static func join(_ directory: String, _ name: String) -> String {
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
        return ScreensPipeError.cache("\(message): \(reason)")
    }
}
