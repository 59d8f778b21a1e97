import ScreensBus

/// `ddl-record`: a Screens DDL record from `/screens.screensddlrecord/get-ddl-records`,
/// `{"modelAttributes": {...}, "modelValues": {...}}`, flattened into one row.
///
/// The row is `recordId`, `recordSetId`, the other model attributes (dates as ISO 8601),
/// then every record value by field name with localized values resolved. A value wins over
/// an attribute of the same name: the values are what the record set defines. A plain
/// record without `modelAttributes` is read from its top level.
enum DDLRecordModel {
    private static let identity = FieldListModel(fields: [
        .model("recordId", .int, required: true),
        .model("recordSetId", .int),
    ])
    private static let dateAttributes: Set<String> = ["createDate", "modifiedDate", "statusDate", "lastPublishDate"]

    static func convert(_ row: JSONObject, locale: String?) throws(ScreensPipeError) -> JSONObject {
        var attributes = row["modelAttributes"]?.objectValue ?? row
        attributes["modelValues"] = nil
        var output = try identity.convert(.object(attributes), locale: locale)
        for (key, value) in attributes where output[key] == nil {
            if dateAttributes.contains(key), let date = FieldCoercion.coerce(value, to: .date) {
                output[key] = date
            } else {
                output[key] = value
            }
        }
        if let values = row["modelValues"] {
            guard case .object(let fields) = values else {
                throw ScreensPipeError.conversion("modelValues is \(values.typeName), expected an object")
            }
            for (key, value) in fields {
                output[key] = LocalizedValue.resolve(value, locale: locale)
            }
        }
        return output
    }
}
