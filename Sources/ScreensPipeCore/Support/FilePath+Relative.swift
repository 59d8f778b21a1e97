/// File paths written inside a file (a pipeline's `source.path`, a test file's `pipeline:`)
/// are relative to that file, so the file means the same from any working directory.
enum RelativePath {
    /// `path` resolved against the directory of `file`: unchanged when `path` is absolute or
    /// `file` has no directory part (a bare name, standard input, text), else joined to it.
    static func resolve(_ path: String, againstDirectoryOf file: String?) -> String {
        guard !path.hasPrefix("/"), let file, let slash = file.lastIndex(of: "/") else { return path }
        return String(file[...slash]) + path
    }
}
