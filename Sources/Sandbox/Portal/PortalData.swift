// A plain import: SwiftPM's generated resource accessor imports Foundation publicly.
import Foundation
import ScreensJSON

/// A site (group) of the portal.
struct Site: Sendable {
    var groupId: Int64
    var name: String
    var friendlyURL: String
}

/// A folder of bookmarks or web content.
struct Folder: Sendable {
    var folderId: Int64
    var groupId: Int64
    var parentFolderId: Int64
    /// The folder as JSON-WS serves it.
    var row: JSONValue
}

/// A web content article with its localized parts parsed once, for headless delivery and sorting.
struct Article: Sendable {
    var row: JSONValue
    var groupId: Int64
    var folderId: Int64
    var title: LocalizedText
    var description: LocalizedText
    var fields: [ContentField]
}

/// An asset entry and the attributes an `AssetEntryQuery` filters on.
struct Asset: Sendable {
    var row: JSONValue
    var groupId: Int64
    var classNameId: Int64
    var visible: Bool
}

/// A dynamic data list.
struct RecordSet: Sendable {
    var recordSetId: Int64
    var groupId: Int64
    /// The structure's `ddm-documentlibrary` fields (`documentFields`), whose values name a
    /// file entry (Documents/DDLDocumentFields.swift).
    var documentFields: Set<String> = []
}

/// Everything the sandbox serves, loaded from the data directory.
struct PortalData: Sendable {
    var sites: [Int64: Site]
    var accounts: Accounts
    var bookmarkFolders: [Int64: Folder]
    /// Bookmark folders in file order, for `get-folders`.
    var bookmarkFolderList: [Folder]
    /// Bookmarks by group, then folder, in file order.
    var bookmarks: [Int64: [Int64: [JSONValue]]]
    var journalFolders: [Int64: Folder]
    var articles: [Article]
    var classNames: [Int64: String]
    var assets: [Asset]
    var recordSets: [Int64: RecordSet]
    /// Records by record set, in file order.
    var records: [Int64: [JSONValue]]
    /// Asset Publisher configurations saved by name (PortletItemService).
    var portletItems: [PortletItem] = []
    /// Web content structure ids by structure key (headless `contentStructureId`).
    var structureIds: [String: Int64]
    /// Comments of assets (`comments.json`), shared by every copy: writes change them.
    var discussions = Discussions([])
    /// Document library folders and file entries (`dl-folders.json`, `dl-file-entries.json`).
    var documents = DocumentLibrary()
    /// File entries uploaded and deleted through `dlapp`: each sandbox's own.
    var uploads = UploadedFiles()
}

extension PortalData {
    /// Loads every data file of `directory`.
    init(directory: String) throws {
        let reader = DataFileReader(directory: directory)

        var sites: [Int64: Site] = [:]
        for site in try reader.array("sites.json") {
            let groupId = try reader.int64(site, "groupId", in: "sites.json")
            sites[groupId] = Site(
                groupId: groupId, name: site["name"]?.stringValue ?? "", friendlyURL: site["friendlyURL"]?.stringValue ?? "")
        }

        var users: [Account] = []
        for user in try reader.array("users.json") {
            users.append(try Account(json: user, reader: reader))
        }

        var bookmarkFolders: [Int64: Folder] = [:]
        var bookmarkFolderList: [Folder] = []
        for folder in try reader.array("bookmarks-folders.json") {
            let folder = try reader.folder(folder, in: "bookmarks-folders.json")
            bookmarkFolders[folder.folderId] = folder
            bookmarkFolderList.append(folder)
        }
        var bookmarks: [Int64: [Int64: [JSONValue]]] = [:]
        for entry in try reader.array("bookmarks-entries.json") {
            let groupId = try reader.int64(entry, "groupId", in: "bookmarks-entries.json")
            let folderId = try reader.int64(entry, "folderId", in: "bookmarks-entries.json")
            bookmarks[groupId, default: [:]][folderId, default: []].append(entry)
        }

        var journalFolders: [Int64: Folder] = [:]
        for folder in try reader.array("journal-folders.json") {
            let folder = try reader.folder(folder, in: "journal-folders.json")
            journalFolders[folder.folderId] = folder
        }
        var articles: [Article] = []
        for row in try reader.array("journal-articles.json") {
            articles.append(
                Article(
                    row: row,
                    groupId: try reader.int64(row, "groupId", in: "journal-articles.json"),
                    folderId: try reader.int64(row, "folderId", in: "journal-articles.json"),
                    title: LocalizedXML.parseLocalized(row["title"]?.stringValue ?? ""),
                    description: LocalizedXML.parseLocalized(row["description"]?.stringValue ?? ""),
                    fields: LocalizedXML.parseContent(row["content"]?.stringValue ?? "")))
        }

        var classNames: [Int64: String] = [:]
        for className in try reader.array("class-names.json") {
            classNames[try reader.int64(className, "classNameId", in: "class-names.json")] = className["value"]?.stringValue
        }
        var assets: [Asset] = []
        for row in try reader.array("asset-entries.json") {
            assets.append(
                Asset(
                    row: row,
                    groupId: try reader.int64(row, "groupId", in: "asset-entries.json"),
                    classNameId: try reader.int64(row, "classNameId", in: "asset-entries.json"),
                    visible: row["visible"]?.boolValue ?? true))
        }

        var recordSets: [Int64: RecordSet] = [:]
        for set in try reader.array("ddl-record-sets.json") {
            let id = try reader.int64(set, "recordSetId", in: "ddl-record-sets.json")
            recordSets[id] = RecordSet(
                recordSetId: id, groupId: try reader.int64(set, "groupId", in: "ddl-record-sets.json"),
                documentFields: Set(set["documentFields"]?.arrayValue?.compactMap(\.stringValue) ?? []))
        }
        var records: [Int64: [JSONValue]] = [:]
        for record in try reader.array("ddl-records.json") {
            guard let attributes = record["modelAttributes"] else {
                throw SandboxError("ddl-records.json: a record has no modelAttributes")
            }
            records[try reader.int64(attributes, "recordSetId", in: "ddl-records.json"), default: []].append(record)
        }

        var structureIds: [String: Int64] = [:]
        for structure in try reader.array("ddm-structures.json", optional: true) {
            guard let key = structure["structureKey"]?.stringValue else {
                throw SandboxError("\(directory)/ddm-structures.json: a structure has no structureKey")
            }
            structureIds[key] = try reader.int64(structure, "structureId", in: "ddm-structures.json")
        }

        self.init(
            sites: sites, accounts: Accounts(users: users), bookmarkFolders: bookmarkFolders,
            bookmarkFolderList: bookmarkFolderList, bookmarks: bookmarks,
            journalFolders: journalFolders, articles: articles, classNames: classNames, assets: assets,
            recordSets: recordSets, records: records, structureIds: structureIds)
        portletItems = try PortletItem.load(reader)
        discussions = try Discussions.load(reader)
        documents = try DocumentLibrary.load(reader)
    }
}

/// Reads and checks the JSON data files, with messages that name the file.
struct DataFileReader {
    var directory: String

    /// The rows of `file`; an `optional` file that does not exist has none (data directories
    /// written before it was added keep working).
    func array(_ file: String, optional: Bool = false) throws -> [JSONValue] {
        let path = directory + "/" + file
        guard let bytes = DataDirectory.readFile(path) else {
            if optional, !FileManager.default.fileExists(atPath: path) { return [] }
            throw SandboxError("sandbox data file \(path) is missing or unreadable")
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes)
        } catch {
            throw SandboxError("sandbox data file \(path) is not valid JSON: \(error)")
        }
        guard let rows = value.arrayValue else { throw SandboxError("sandbox data file \(path) must hold a JSON array") }
        return rows
    }

    func int64(_ object: JSONValue, _ key: String, in file: String) throws -> Int64 {
        guard let value = object[key]?.int64Value else {
            throw SandboxError("\(directory)/\(file): an entry has no integer \"\(key)\"")
        }
        return value
    }

    func folder(_ object: JSONValue, in file: String) throws -> Folder {
        Folder(
            folderId: try int64(object, "folderId", in: file), groupId: try int64(object, "groupId", in: file),
            parentFolderId: object["parentFolderId"]?.int64Value ?? 0, row: object)
    }
}
