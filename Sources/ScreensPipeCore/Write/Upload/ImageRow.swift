import ScreensBus

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// One image row: a local file to upload into a folder, or a file entry to delete.
struct ImageRow: JournaledRow, Hashable {
    enum Operation: String, Sendable, Hashable {
        /// Image Gallery's upload interactor: `/dlapp/add-file-entry`.
        case upload
        /// Image Gallery's delete interactor: `/dlapp/delete-file-entry`.
        case delete
    }

    var line: Int
    var operation: Operation
    /// The `file` field as the row gives it, for messages and events.
    var file = ""
    /// The file's resolved path, inside the files directory.
    var path = ""
    /// The file's size and modification time when the row was checked.
    var size: Int64 = 0
    var modified: Int64 = 0
    var sourceFileName = ""
    var title = ""
    var description = ""
    var changeLog = ""
    var mimeType = ""
    var repositoryId: Int64 = 0
    var folderId: Int64 = 0
    /// The entry deleted.
    var fileEntryId: Int64 = 0
    /// An upload kept in the outbox: the content of the row as it was given, whose file
    /// the outbox keeps a copy of (``UploadSpool``). The journal records this, so a later
    /// write of the same file is `unchanged`, not a second upload.
    var keptContent: String?

    /// A folder holds one entry per title (DuplicateFileEntryException), so an upload is
    /// that entry; a delete is about its entry.
    var key: String {
        switch operation {
        case .upload: WriteKey.encode(["upload", String(repositoryId), String(folderId), title])
        case .delete: WriteKey.encode(["delete", String(fileEntryId)])
        }
    }

    /// What the entry holds: a changed file (size, time) or description is another upload.
    var content: String {
        switch operation {
        case .upload: keptContent ?? WriteKey.encode([path, String(size), String(modified), sourceFileName, mimeType, description])
        case .delete: "deleted"
        }
    }

    /// What a second row of the same key repeats, for its reject.
    var keyDescription: String {
        operation == .upload ? "title \(title) in folder \(folderId)" : "file entry \(fileEntryId)"
    }

    /// Why this upload is refused when the journal recorded another upload of its key: a
    /// folder holds one entry per title, and an upload never replaces one.
    func replacingReason(_ record: WriteJournal.Record) -> String {
        "an earlier run uploaded '\(title)' as file entry \(record.entryId.map(String.init) ?? "?") (journal), and this row's file or values differ; an upload does not replace an entry: delete it first"
    }

    /// The details of the row's `result` event, with the entry's id when known.
    func resultDetails(id: Int64?) -> JSONObject {
        var details = JSONObject()
        switch operation {
        case .upload:
            if let id { details["fileEntryId"] = .int(id) }
            details["title"] = .string(title)
            details["folderId"] = .int(folderId)
            details["file"] = .string(file)
            details["size"] = .int(size)
        case .delete:
            details["op"] = "delete"
            details["fileEntryId"] = .int(fileEntryId)
        }
        return details
    }

    /// The row the outbox keeps for this one, its file the copy at `file` in the upload
    /// spool (read back by a validator with `keptRows`); a delete as it is.
    func kept(file: String) -> JSONValue {
        switch operation {
        case .upload:
            [
                "file": .string(file), "title": .string(title), "description": .string(description), "changeLog": .string(changeLog),
                "mimeType": .string(mimeType), "folderId": .int(folderId), "keptContent": .string(content),
            ]
        case .delete: ["op": "delete", "fileEntryId": .int(fileEntryId)]
        }
    }

    var inputText: String {
        switch operation {
        case .upload:
            JSONValue.object([
                "file": .string(file), "title": .string(title), "description": .string(description), "mimeType": .string(mimeType),
                "folderId": .int(folderId),
            ]).jsonString
        case .delete: JSONValue.object(["op": "delete", "fileEntryId": .int(fileEntryId)]).jsonString
        }
    }
}

/// Checks image rows as Image Gallery's interactors and the portal's `DLValidator` would,
/// before any request, and the files they name.
///
/// A row's `file` is relative to the files directory: the directory of the `--input` file,
/// or the working directory for standard input and a pipeline's own source. A path that is
/// absolute, or that leads out of that directory (`..`, a symbolic link), is refused, as is
/// anything but a regular file (a directory, a FIFO, a device).
struct ImageRowValidator {
    /// `DLFileEntry.title` holds at most 255 characters.
    static let titleLength = 255
    static let descriptionLength = 65_536
    static let mimeTypeLength = 255
    /// Characters `DLValidatorImpl` refuses in a title or file name (`dl.char.blacklist`).
    static let forbiddenTitleCharacters: Set<Character> = ["\\", "/", ":", "*", "?", "\"", "<", ">", "|"]

    let spec: LiferaySinkSpec
    /// The files directory, resolved (no symbolic links, no trailing slash).
    let directory: String
    /// Rows the outbox kept (the directory is the upload spool): their `keptContent` is
    /// the content of the row as first given. No other row's is read.
    let keptRows: Bool

    init(spec: LiferaySinkSpec, filesDirectory: String, keptRows: Bool = false) throws(ScreensPipeError) {
        self.spec = spec
        self.keptRows = keptRows
        guard let resolved = Self.resolve(filesDirectory) else {
            throw ScreensPipeError.io("cannot resolve the files directory \(filesDirectory): \(String(cString: strerror(errno)))")
        }
        directory = resolved
    }

    func row(_ value: JSONValue, line: Int) throws(RowRejection) -> ImageRow {
        guard case .object = value else {
            throw RowRejection(message: "a row is a JSON object (file, title, mimeType to upload; op delete and fileEntryId to delete), found \(value.typeName)")
        }
        let operation: ImageRow.Operation
        if let given = value["op"], !given.isNull {
            guard let name = given.stringValue, let named = ImageRow.Operation(rawValue: name) else {
                throw RowRejection(message: "'op' is upload or delete, found \(given.jsonString.prefix(100))")
            }
            operation = named
        } else {
            operation = .upload
        }
        var row = ImageRow(line: line, operation: operation)
        row.repositoryId = spec.groupId
        switch operation {
        case .delete:
            guard let fileEntryId = try WriteRowParsing.positiveId(value, "fileEntryId") else {
                throw RowRejection(message: "missing 'fileEntryId', the file entry to delete")
            }
            row.fileEntryId = fileEntryId
        case .upload:
            if value["fileEntryId"].map({ !$0.isNull }) == true {
                throw RowRejection(message: "'fileEntryId' names an entry to delete (op: delete); an upload names its file")
            }
            if value["folderId"]?.int64Value == 0 {
                row.folderId = 0  // the site's root folder
            } else if let folderId = try WriteRowParsing.positiveId(value, "folderId") {
                row.folderId = folderId
            } else if let folderId = spec.folderId {
                row.folderId = folderId
            } else {
                throw RowRejection(message: "missing 'folderId' (or the sink's folder-id): the folder the image goes to, 0 for the site's root")
            }
            row.file = try WriteRowParsing.text(value, "file", required: true, limit: Int(PATH_MAX))
            try place(&row)
            row.title = try WriteRowParsing.text(value, "title", required: false, limit: Self.titleLength)
            if row.title.isEmpty { row.title = row.sourceFileName }
            try Self.checkName(row.title, field: "title")
            row.description = try WriteRowParsing.text(value, "description", required: false, limit: Self.descriptionLength)
            try Self.checkText(row.description, field: "description")
            row.changeLog = try WriteRowParsing.text(value, "changeLog", required: false, limit: Self.descriptionLength)
            try Self.checkText(row.changeLog, field: "changeLog")
            row.mimeType = try WriteRowParsing.text(value, "mimeType", required: true, limit: Self.mimeTypeLength)
            guard Self.isMimeType(row.mimeType) else {
                throw RowRejection(message: "'mimeType' must be a MIME type like image/png, found \(JSONValue.string(String(row.mimeType.prefix(100))).jsonString)")
            }
            if keptRows { row.keptContent = value["keptContent"]?.stringValue }
        }
        return row
    }

    /// Resolves the row's file inside the files directory and reads its size and time.
    private func place(_ row: inout ImageRow) throws(RowRejection) {
        let file = row.file
        guard !file.hasPrefix("/") else {
            throw RowRejection(message: "'file' must be relative to the files directory \(directory), found the absolute path \(file.prefix(200))")
        }
        guard !file.utf8.contains(0) else { throw RowRejection(message: "'file' holds a NUL character") }
        guard let resolved = Self.resolve(directory + "/" + file) else {
            throw RowRejection(message: "cannot find the file \(file.prefix(200)) in \(directory): \(String(cString: strerror(errno)))")
        }
        guard resolved.hasPrefix(directory + "/") || (directory == "/" && resolved != "/") else {
            throw RowRejection(message: "the file \(file.prefix(200)) is outside the files directory \(directory); rows name files inside it")
        }
        var status = stat()
        guard stat(resolved, &status) == 0 else {
            throw RowRejection(message: "cannot read the file \(file.prefix(200)): \(String(cString: strerror(errno)))")
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw RowRejection(message: "the file \(file.prefix(200)) is a directory; an upload names a regular file")
        case S_IFIFO: throw RowRejection(message: "the file \(file.prefix(200)) is a FIFO; an upload names a regular file")
        default: throw RowRejection(message: "the file \(file.prefix(200)) is not a regular file")
        }
        guard access(resolved, R_OK) == 0 else {
            throw RowRejection(message: "cannot read the file \(file.prefix(200)): \(String(cString: strerror(errno)))")
        }
        row.path = resolved
        row.size = Int64(status.st_size)
        #if canImport(Darwin)
            row.modified = Int64(status.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(status.st_mtimespec.tv_nsec)
        #else
            row.modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        #endif
        row.sourceFileName = String(resolved.split(separator: "/").last ?? "")
        try Self.checkName(row.sourceFileName, field: "file name")
    }

    /// A title or file name: no control character, none of the portal's forbidden ones.
    private static func checkName(_ text: String, field: String) throws(RowRejection) {
        guard !text.isEmpty else { throw RowRejection(message: "the \(field) is empty") }
        if let bad = text.first(where: { forbiddenTitleCharacters.contains($0) }) {
            throw RowRejection(message: "the \(field) holds '\(bad)', which the portal refuses in a document's name (FileNameException)")
        }
        try checkText(text, field: field, lineBreaks: false)
    }

    private static func checkText(_ text: String, field: String, lineBreaks: Bool = true) throws(RowRejection) {
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            let allowed = lineBreaks && (scalar == "\t" || scalar == "\n" || scalar == "\r")
            guard (scalar.value < 0x20 || scalar.value == 0x7F), !allowed else { continue }
            let code = String(scalar.value, radix: 16, uppercase: true)
            throw RowRejection(message: "'\(field)' holds the control character U+\(String(repeating: "0", count: 4 - code.count))\(code) at character \(offset + 1)")
        }
    }

    /// `type/subtype`, each an RFC 2045 token.
    static func isMimeType(_ text: String) -> Bool {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        let specials = Set("()<>@,;:\\\"/[]?= ".unicodeScalars)
        return parts.allSatisfy { part in
            !part.isEmpty && part.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && !specials.contains($0) }
        }
    }

    /// The path with symbolic links, `.` and `..` resolved; nil when it does not exist.
    static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

extension WriteInput {
    /// Where the files an image row names are found: beside the rows' file (`--input`, or
    /// a pipeline's own file source), else in the working directory (standard input).
    func filesDirectory(source: SourceSpec) -> String {
        let rowsFile: String
        switch self {
        case .file(let path): rowsFile = path
        case .pipelineSource:
            guard let path = source.type.settings(as: FileSourceSpec.self)?.path else { return "." }
            rowsFile = path
        case .standardInput, .rows: return "."
        }
        guard let slash = rowsFile.lastIndex(of: "/") else { return "." }
        return slash == rowsFile.startIndex ? "/" : String(rowsFile[..<slash])
    }
}
