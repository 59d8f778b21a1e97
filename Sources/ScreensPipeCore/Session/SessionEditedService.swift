import ScreensBus

/// The `liferay` sink services whose lists a session edits, each with its rows' rules: how
/// an edit becomes a write row, how a row of the list is found by key, and how a written
/// entry is read back as the list shows it.
///
/// - Bookmarks (Bookmark List Screenlet): add, update and delete; the lookup by key reads a
///   written entry back whole.
/// - An image gallery's file entries (Image Gallery Screenlet, JSON-WS): an `add` uploads a
///   file (`/dlapp/add-file-entry`) and a `delete` removes an entry by its `fileEntryId`
///   (`/dlapp/delete-file-entry`), as `ImageGalleryUploadInteractor` and
///   `ImageGalleryDeleteInteractor` do; Image Gallery changes no entry, so there is no
///   `update`. A written entry is read back with `/dlapp/get-file-entry`.
enum SessionEditedService: Sendable {
    case bookmark(BookmarkWriteModel)
    case image(ImageRowValidator)

    /// The service of `sink` (on a pipeline whose source is `source`), or why a session
    /// cannot edit its list.
    static func make(sink: LiferaySinkSpec, source: SourceSpec) -> Result<SessionEditedService, SessionCommandError> {
        switch (sink.service, sink.transport) {
        case (.bookmark, .jsonws):
            return .success(.bookmark(BookmarkWriteModel(spec: sink)))
        case (.image, .jsonws):
            // An added image's `file` is found as `screens-pipe write` finds the files of rows
            // given whole: in the working directory.
            do throws(ScreensPipeError) {
                return .success(.image(try ImageRowValidator(spec: sink, filesDirectory: WriteInput.rows([]).filesDirectory(source: source))))
            } catch {
                return .failure(SessionCommandError(message: error.message))
            }
        default:
            return .failure(
                SessionCommandError(
                    message:
                        "a session edits lists of bookmarks (sink service: bookmark) and image galleries (service: image), over JSON-WS; this sink writes \(sink.service.rawValue) over \(sink.transport.rawValue): use screens-pipe write"
                ))
        }
    }

    /// The field a listed row names its version by, copied into updates and deletes so that a
    /// sync can detect a conflict; nil when the service has no such check.
    var versionField: String? {
        switch self {
        case .bookmark(let model): model.spec.versionField
        // A file entry is uploaded or deleted, never changed: nothing to compare.
        case .image: nil
        }
    }

    /// An edit as the row `screens-pipe write` takes, and the sink's key of that row.
    func prepare(_ edit: SessionEdit) -> Result<SessionEditRules.Prepared, SessionCommandError> {
        let row: JSONValue
        switch (self, edit) {
        case (.image, .update):
            return .failure(
                SessionCommandError(
                    message:
                        "an image gallery uploads and deletes images, it does not change them: delete the entry ({\"op\":\"delete\",\"key\":{\"fileEntryId\":N}}) and add the new file"
                ))
        case (.image, .add(let given)):
            if let op = given["op"], !op.isNull, op != "upload" {
                return .failure(SessionCommandError(message: "an add uploads its row's file; \"op\" in the row can only be upload, found \(op.jsonString.prefix(100))"))
            }
            row = given
        case (.image, .delete(let key)):
            guard let id = key["fileEntryId"], !id.isNull else {
                return .failure(SessionCommandError(message: "the key of an image is its file entry: {\"fileEntryId\":N}, as every row of the list has it"))
            }
            row = ["op": "delete", "fileEntryId": id]
        case (.bookmark, .add(let given)), (.bookmark, .update(let given)):
            row = given
        case (.bookmark, .delete(let key)):
            var object = key.objectValue ?? JSONObject()
            object["op"] = "delete"
            row = .object(object)
        }
        do throws(RowRejection) {
            return .success(SessionEditRules.Prepared(row: row, key: try key(of: row)))
        } catch {
            return .failure(SessionCommandError(message: "the sink refuses the row: \(error.message)"))
        }
    }

    /// The sink's key of a write row, checked as `screens-pipe write` checks it.
    private func key(of row: JSONValue) throws(RowRejection) -> String {
        switch self {
        case .bookmark(let model): try model.row(row, line: 1).key
        case .image(let validator): try validator.row(row, line: 1).key
        }
    }

    /// The sink's key of a row as the list's source returned it (the key of an update or
    /// delete of that row); nil when it has none.
    func listKey(_ listed: JSONValue) -> String? {
        switch self {
        case .bookmark(let model):
            return model.listedRow(listed)?.key
        case .image:
            guard let id = listed["fileEntryId"]?.int64Value else { return nil }
            return ImageRow(line: 0, operation: .delete, fileEntryId: id).key
        }
    }

    /// The entry an edit wrote, as the portal lists it: a bookmark found by its key, a file
    /// entry by the id its upload answered (`result`, the write's `result` payload).
    func readBack(_ written: JSONValue, key: String, result: JSONValue?, transport: JSONWSBookmarkTransport) async throws(ScreensPipeError) -> JSONValue? {
        switch self {
        case .bookmark(let model):
            guard let row = try? model.row(written, line: 1) else { return nil }
            return try await model.lookup([row], transport: transport)?[key]?.remote
        case .image:
            guard let id = result?["fileEntryId"]?.int64Value else { return nil }
            return try await transport.read(("/dlapp/get-file-entry", ["fileEntryId": .int(id)]), what: "file entry \(id)")
        }
    }
}

extension BookmarkWriteModel {
    /// The row of an entry as the portal lists it (`get-entries`), keyed as the sink keys
    /// rows: what a lookup finds and what a session finds a row of its list by.
    func listedRow(_ entry: JSONValue) -> BookmarkRow? {
        guard case .object = entry, let url = entry["url"]?.stringValue else { return nil }
        var row = BookmarkRow(
            line: 0, groupId: spec.groupId, folderId: entry["folderId"]?.int64Value ?? spec.folderId ?? 0,
            name: entry["name"]?.stringValue ?? "", url: url,
            description: entry["description"]?.stringValue ?? "", key: "", legacyKey: "")
        row.key = BookmarkRowValidator.key(of: row, fields: spec.key)
        return row
    }
}
