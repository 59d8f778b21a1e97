import ScreensJSON

/// A DDL record's document field (`ddm-documentlibrary`), as the portal checks its value on
/// `add-record` and `update-record`: the JSON text DDL Form Screenlet writes after its
/// upload, `{"groupId":G,"uuid":"U","version":"V"}`, naming a file entry of the document
/// library by `uuid` and `groupId`. An empty value is no document. Text that is not a JSON
/// object is the DDM value validator's DDMFormFieldValueValidationException; an object that
/// names no file entry (no uuid, another group, a deleted entry) is NoSuchFileEntryException,
/// the portal's lookup by uuid and group finding none.
enum DDLDocumentFields {
    static func check(_ value: JSONValue, field: String, portal: Portal) throws {
        guard case .string(let text) = value else {
            if value.isNull { return }
            throw invalid(field)
        }
        guard !text.isEmpty else { return }
        guard case .object(let object)? = try? JSONValue(parsing: Array(text.utf8)) else { throw invalid(field) }
        let uuid = object["uuid"]?.stringValue ?? ""
        let groupId = object["groupId"]?.int64Value ?? (object["groupId"]?.stringValue).flatMap { Int64($0) } ?? 0
        let found = portal.data.uploads.find(stored: portal.data.documents.entries) {
            $0["uuid"]?.stringValue == uuid && $0["groupId"]?.int64Value == groupId
        }
        guard found != nil, !uuid.isEmpty else {
            throw PortalError(
                status: 404, type: "com.liferay.document.library.kernel.exception.NoSuchFileEntryException",
                message: "No DLFileEntry exists with the key {uuid=\(uuid.prefix(100)), groupId=\(groupId)}")
        }
    }

    private static func invalid(_ field: String) -> PortalError {
        PortalError(
            status: 500, type: "com.liferay.dynamic.data.mapping.form.field.type.DDMFormFieldValueValidationException",
            message: "Invalid JSON object for field \(field)")
    }
}
