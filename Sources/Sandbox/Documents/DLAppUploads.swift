import ScreensJSON

/// `POST /api/jsonws/dlapp/add-file-entry` as `multipart/form-data`, the request the Mobile
/// SDK's upload (Screens' `UploadFileConnector`, Image Gallery's upload interactor) sends:
/// the parameters `repositoryId`, `folderId`, `sourceFileName`, `mimeType`, `title`,
/// `description`, `changeLog` as form fields and the file as the `file` part; and
/// `/dlapp/delete-file-entry(fileEntryId)` through `/api/jsonws/invoke`.
///
/// Checked as `DLAppServiceImpl.addFileEntry` and `DLFileEntryLocalServiceImpl` check it:
/// the repository (NoSuchRepositoryException), the folder (NoSuchFolderException), the
/// user's permission on the site, the size (FileSizeException over `dl.file.max.size`),
/// the content type (FileMimeTypeException: not an allowed type, or not what the file's
/// bytes are), the title (a title or file name already in the folder:
/// DuplicateFileEntryException). The body is parsed as it arrives (``MultipartReceiver``):
/// a file is counted, never kept, so an upload of any size costs the sandbox no memory.
enum DLAppUploads {
    static let path = "/api/jsonws/dlapp/add-file-entry"
    static let titleMaxLength = 255

    /// The answer to an upload request sent by `account`.
    static func respond(_ request: SandboxRequest, portal: Portal, account: Account) -> (status: Int, body: JSONValue) {
        do {
            guard let received = request.upload else { throw uploadError("add-file-entry with a file is sent as multipart/form-data") }
            if let malformed = received.malformed { throw uploadError("The multipart request could not be read: \(malformed)") }
            return (200, try add(received, portal: portal, account: account))
        } catch let error as PortalError {
            return (error.status, error.jsonwsBody)
        } catch {
            let failure = PortalError(status: 500, type: "java.lang.RuntimeException", message: "\(error)")
            return (failure.status, failure.jsonwsBody)
        }
    }

    /// What `UploadServletRequestImpl` reports for a request it cannot read as an upload.
    private static func uploadError(_ message: String) -> PortalError {
        PortalError(status: 500, type: "com.liferay.portal.kernel.upload.UploadException", message: message)
    }

    private static func add(_ received: MultipartReceiver.Received, portal: Portal, account: Account) throws -> JSONValue {
        var raw = JSONObject()
        for (name, value) in received.fields { raw[name] = .string(value) }
        let params = ServiceParameters(raw)
        let repositoryId = try params.long("repositoryId")
        let folderId = try params.long("folderId")
        // The folder list's checks: repository, folder, permission.
        _ = try portal.fileEntries(repositoryId: repositoryId, folderId: folderId, mimeTypes: nil, for: account)
        guard let file = received.files.first(where: { $0.name == "file" }) else { throw PortalError.missingParameter("file") }
        try checkSize(file, portal: portal)
        guard let mimeType = try params.string("mimeType"), !mimeType.isEmpty else { throw PortalError.missingParameter("mimeType") }
        return try store(
            file, repositoryId: repositoryId, folderId: folderId, sourceFileName: try params.string("sourceFileName") ?? file.fileName,
            mimeType: mimeType, title: try params.string("title") ?? "", description: try params.string("description") ?? "",
            portal: portal, account: account)
    }

    /// FileSizeException over `dl.file.max.size`.
    static func checkSize(_ file: MultipartReceiver.FilePart, portal: Portal) throws {
        let uploads = portal.data.uploads
        guard file.size <= uploads.fileMaxSize else {
            throw PortalError(
                status: 413, type: "com.liferay.document.library.kernel.exception.FileSizeException",
                message: "\(file.size) exceeds the maximum permitted size of \(uploads.fileMaxSize) for file \(file.fileName)")
        }
    }

    /// The checks `DLFileEntryLocalServiceImpl` makes once the folder and the size passed
    /// (the type, the title, a title or file name already in the folder), then the new
    /// entry, as both the JSON-WS and the headless upload store it.
    static func store(
        _ file: MultipartReceiver.FilePart, repositoryId: Int64, folderId: Int64, sourceFileName: String, mimeType: String, title given: String,
        description: String, portal: Portal, account: Account
    ) throws -> JSONValue {
        let uploads = portal.data.uploads
        guard uploads.allowedMimeTypes.contains(mimeType) else {
            throw PortalError(
                status: 500, type: "com.liferay.document.library.kernel.exception.FileMimeTypeException",
                message: "\(mimeType) is not an allowed MIME type (\(uploads.allowedMimeTypes.sorted().joined(separator: ", ")))")
        }
        if let detected = detectedType(file.leadingBytes), detected != mimeType {
            throw PortalError(
                status: 500, type: "com.liferay.document.library.kernel.exception.FileMimeTypeException",
                message: "The file's content is \(detected), not \(mimeType)")
        }
        let title = given.isEmpty ? sourceFileName : given
        guard !title.isEmpty, title.count <= titleMaxLength else {
            throw PortalError(
                status: 500, type: "com.liferay.document.library.kernel.exception.FileNameException",
                message: title.isEmpty ? "A title or source file name is required" : "The title is longer than \(titleMaxLength) characters")
        }
        let key = DocumentLibrary.FolderKey(groupId: repositoryId, folderId: folderId)
        let now = StructuredContentWrites.currentMilliseconds()
        let fileExtension = sourceFileName.split(separator: ".").count > 1 ? String(sourceFileName.split(separator: ".").last!) : ""
        return try uploads.add(
            key, stored: portal.data.documents.entries[key] ?? [],
            conflict: { entries in
                if entries.contains(where: { $0["title"]?.stringValue == title || $0["fileName"]?.stringValue == sourceFileName }) {
                    throw PortalError(
                        status: 500, type: "com.liferay.document.library.kernel.exception.DuplicateFileEntryException",
                        message: "A file entry with the title \(title) or file name \(sourceFileName) already exists in folder \(folderId)")
                }
            },
            make: { fileEntryId in
                [
                    "uuid": .string("00000000-0000-4000-8000-\(String(fileEntryId, radix: 10).leftPadded(12))"),
                    "fileEntryId": .int(fileEntryId), "groupId": .int(repositoryId), "companyId": 20099,
                    "userId": .int(account.userId), "userName": .string(account.fullName),
                    "createDate": .int(now), "modifiedDate": .int(now), "repositoryId": .int(repositoryId),
                    "folderId": .int(folderId), "treePath": .string(folderId == 0 ? "/" : "/\(folderId)/"), "name": .string(String(fileEntryId)),
                    "fileName": .string(sourceFileName), "extension": .string(fileExtension), "mimeType": .string(mimeType),
                    "title": .string(title), "description": .string(description), "extraSettings": "", "fileEntryTypeId": 0,
                    "version": "1.0", "size": .int(file.size), "readCount": 0, "smallImageId": 0, "largeImageId": 0,
                    "custom1ImageId": 0, "custom2ImageId": 0, "manualCheckInRequired": false,
                ]
            })
    }

    /// `/dlapp/delete-file-entry(fileEntryId)`: the entry (NoSuchFileEntryException), the
    /// user's permission on its site, then it is gone; answers nothing.
    static let actions: [String: JSONWSServices.Action] = [
        "/dlapp/delete-file-entry": { portal, params, account in
            let fileEntryId = try params.long("fileEntryId")
            _ = try portal.fileEntry(fileEntryId, for: account)
            _ = portal.data.uploads.delete(fileEntryId)
            return .null
        }
    ]

    /// The type the file's first bytes say, for the formats whose magic numbers are
    /// unambiguous; nil for anything else (text, or bytes the sandbox does not know).
    static func detectedType(_ bytes: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8]) -> Bool { bytes.count >= prefix.count && Array(bytes.prefix(prefix.count)) == prefix }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts(Array("%PDF-".utf8)) { return "application/pdf" }
        if starts(Array("RIFF".utf8)), bytes.count >= 12, Array(bytes[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return nil
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
