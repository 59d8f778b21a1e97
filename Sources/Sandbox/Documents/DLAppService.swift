import ScreensJSON

/// `/dlapp/get-file-entries` and `-count` with `mimeTypes`, the calls Liferay Screens' Image
/// Gallery makes (`Liferay70ImageGalleryPageLiferayConnector`: `getFileEntries(repositoryId,
/// folderId, mimeTypes, start, end, obc)` and `getFileEntriesCount(repositoryId, folderId,
/// mimeTypes)`). The comparator is accepted and keeps the stored order. `/dlapp/get-file-entry`
/// (`getFileEntry(fileEntryId)`) reads one entry, as the list shows it.
enum DLAppService {
    static let actions: [String: JSONWSServices.Action] = [
        "/dlapp/get-file-entries": { portal, params, account in
            let rows = try entries(portal, params, account)
            let start = try params.long("start", default: LiferayRange.allPositions)
            let end = try params.long("end", default: LiferayRange.allPositions)
            return .array(RowList.stored(rows).page(LiferayRange.range(start: start, end: end, count: rows.count), hideEvery: nil))
        },
        "/dlapp/get-file-entries-count": { portal, params, account in
            .int(Int64(try entries(portal, params, account).count))
        },
        "/dlapp/get-file-entry": { portal, params, account in
            try portal.fileEntry(try params.long("fileEntryId"), for: account)
        },
    ]

    private static func entries(_ portal: Portal, _ params: ServiceParameters, _ account: Account) throws -> [JSONValue] {
        try portal.fileEntries(
            repositoryId: try params.long("repositoryId"), folderId: try params.long("folderId"),
            mimeTypes: try params.strings("mimeTypes"), for: account)
    }

    /// The DLApp signatures of the Mobile SDK's 7.x catalogues (7.3 names the comparator
    /// `orderByComparator`).
    static let signatures: [ServiceSignature] = {
        let obc = "com.liferay.portal.kernel.util.OrderByComparator<com.liferay.portal.kernel.repository.model.FileEntry>"
        let sources = DefinitionSource.mobileSDK(["v7", "v71", "v72", "v73"], "dlapp/DLAppService")
        let base: [ServiceSignature.Parameter] = [.init("repositoryId", "long"), .init("folderId", "long")]
        let mimeTypes = ServiceSignature.Parameter("mimeTypes", "String[]")
        let range: [ServiceSignature.Parameter] = [.init("start", "int"), .init("end", "int")]
        var all: [ServiceSignature] = [
            ServiceSignature("/dlapp/get-file-entries", base, versions: .v7_0 ... .v7_4, sources: sources),
            ServiceSignature("/dlapp/get-file-entries", base + range, versions: .v7_0 ... .v7_4, sources: sources),
            ServiceSignature("/dlapp/get-file-entries", base + [mimeTypes], versions: .v7_0 ... .v7_4, sources: sources),
            ServiceSignature("/dlapp/get-file-entries-count", base, versions: .v7_0 ... .v7_4, sources: sources),
            ServiceSignature("/dlapp/get-file-entries-count", base + [mimeTypes], versions: .v7_0 ... .v7_4, sources: sources),
            ServiceSignature("/dlapp/delete-file-entry", [.init("fileEntryId", "long")], versions: .v7_0 ... .v7_4, sources: sources),
            ServiceSignature("/dlapp/get-file-entry", [.init("fileEntryId", "long")], versions: .v7_0 ... .v7_4, sources: sources),
        ]
        for (name, versions) in [("obc", LiferayVersion.v7_0 ... .v7_2), ("orderByComparator", .v7_3 ... .v7_4)] {
            let comparator = ServiceSignature.Parameter(name, obc)
            all.append(ServiceSignature("/dlapp/get-file-entries", base + range + [comparator], versions: versions, sources: sources))
            all.append(
                ServiceSignature("/dlapp/get-file-entries", base + [mimeTypes] + range + [comparator], versions: versions, sources: sources))
        }
        return all
    }()
}

extension ServiceParameters {
    /// An optional `String[]`: a JSON array of strings, or comma-separated text, as the
    /// portal's converter reads it.
    func strings(_ name: String) throws -> [String]? {
        guard let value = values[name], !value.isNull else { return nil }
        switch value {
        case .array(let elements):
            return try elements.map { element in
                guard let text = element.stringValue else { throw PortalError.typeConversion(name, value, to: "String[]") }
                return text
            }
        case .string(let text):
            return text.split(separator: ",").map(String.init)
        default:
            throw PortalError.typeConversion(name, value, to: "String[]")
        }
    }
}
