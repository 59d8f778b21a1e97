import ScreensJSON

/// A document library folder (`dl-folders.json`).
struct DocumentFolder: Sendable {
    var folderId: Int64
    var groupId: Int64
    var name: String
}

/// The document library: folders and file entries of `dl-folders.json` and
/// `dl-file-entries.json` (both optional: data directories written before them have none).
/// File entry rows carry the DLFileEntry columns Screens' Image Gallery reads (`fileEntryId`,
/// `groupId`, `folderId`, `title`, `uuid`, `version`, `mimeType`) and the others of the
/// model; they are not checked against a service.xml (see the data README).
struct DocumentLibrary: Sendable {
    var folders: [Int64: DocumentFolder] = [:]
    /// File entries by folder (`0` per site is each site's root), in file order.
    var entries: [FolderKey: [JSONValue]] = [:]

    struct FolderKey: Hashable, Sendable {
        var groupId: Int64
        var folderId: Int64
    }

    static func load(_ reader: DataFileReader) throws -> DocumentLibrary {
        var library = DocumentLibrary()
        for row in try reader.array("dl-folders.json", optional: true) {
            let folderId = try reader.int64(row, "folderId", in: "dl-folders.json")
            library.folders[folderId] = DocumentFolder(
                folderId: folderId, groupId: try reader.int64(row, "groupId", in: "dl-folders.json"),
                name: row["name"]?.stringValue ?? "")
        }
        for row in try reader.array("dl-file-entries.json", optional: true) {
            let key = FolderKey(
                groupId: try reader.int64(row, "groupId", in: "dl-file-entries.json"),
                folderId: try reader.int64(row, "folderId", in: "dl-file-entries.json"))
            guard row["mimeType"]?.stringValue != nil, row["title"]?.stringValue != nil else {
                throw SandboxError("\(reader.directory)/dl-file-entries.json: a file entry needs mimeType and title")
            }
            library.entries[key, default: []].append(row)
        }
        return library
    }
}

extension Portal {
    /// The file entries of a folder of a site's repository, as `DLAppService.getFileEntries`
    /// finds them: the repository (a site's id) first (`NoSuchRepositoryException`), then the
    /// folder (`NoSuchFolderException`, 0 is the root), then the view permission; only the
    /// entries whose `mimeType` is one of `mimeTypes` (null or empty: all).
    func fileEntries(repositoryId: Int64, folderId: Int64, mimeTypes: [String]?, for account: Account) throws -> [JSONValue] {
        guard data.sites[repositoryId] != nil else {
            throw PortalError(
                status: 404, type: "com.liferay.portal.kernel.exception.NoSuchRepositoryException",
                message: "No Repository exists with the primary key \(repositoryId)")
        }
        if folderId != 0 {
            guard let folder = data.documents.folders[folderId], folder.groupId == repositoryId else {
                throw PortalError(
                    status: 404, type: "com.liferay.document.library.kernel.exception.NoSuchFolderException",
                    message: "No DLFolder exists with the primary key \(folderId)")
            }
        }
        try checkGroup(repositoryId, for: account)
        let key = DocumentLibrary.FolderKey(groupId: repositoryId, folderId: folderId)
        let rows = data.uploads.merged(key, stored: data.documents.entries[key] ?? [])
        guard let mimeTypes, !mimeTypes.isEmpty else { return rows }
        let wanted = Set(mimeTypes)
        return rows.filter { wanted.contains($0["mimeType"]?.stringValue ?? "") }
    }

    /// The file entry `fileEntryId`, stored or uploaded and not deleted, as
    /// `DLAppService.getFileEntry` finds it: the entry (`NoSuchFileEntryException`), then the
    /// view permission on its site.
    func fileEntry(_ fileEntryId: Int64, for account: Account) throws -> JSONValue {
        guard let entry = data.uploads.find(fileEntryId, stored: data.documents.entries) else {
            throw PortalError(
                status: 404, type: "com.liferay.document.library.kernel.exception.NoSuchFileEntryException",
                message: "No DLFileEntry exists with the primary key \(fileEntryId)")
        }
        try checkGroup(entry["groupId"]?.int64Value ?? 0, for: account)
        return entry
    }
}
