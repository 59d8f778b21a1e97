import ScreensBus

/// The convert stage: raw portal objects to model rows (the `convertResult` of Screens).
///
/// Built once from the `convert:` spec, which it checks, then applied to every row. With a
/// model and a `fields:` mapping both, the mapping reads the model's output.
package struct RowConverter: Sendable {
    private let model: BuiltInModel?
    private let mapping: FieldListModel?
    let locale: String?
    /// The portal's base URL, for models that build links as Screens does from
    /// `LiferayServerContext.server` (the image model's URLs); nil writes them relative.
    var serverURL: String?

    /// Checks `spec` (paths, defaults, duplicate names); a nil spec passes rows through.
    ///
    /// - Throws: a `.configuration` error at the offending field's location.
    package init(spec: ConvertSpec?) throws(ScreensPipeError) {
        model = spec?.model.map(BuiltInModel.init)
        mapping = try spec?.fields.map { mappings throws(ScreensPipeError) in try FieldListModel(mappings: mappings) }
        locale = spec?.locale
    }

    /// The convert stage of a pipeline with no `convert:`: rows pass as they are.
    static let identity = RowConverter()

    private init() {
        (model, mapping, locale) = (nil, nil, nil)
    }

    /// Whether rows come out as they went in (no model, no field mapping).
    var isIdentity: Bool { model == nil && mapping == nil }

    /// The one list of fields rows are converted with, when each of its fields reads one
    /// member of the row (`entryId`, not `author.email`): a fixed-field model's, or the
    /// `fields:` mapping's when there is no model. Nil for a field with a longer path, a DDL
    /// record model, a model and a mapping both, and no convert: those read the row's values.
    /// The read plan (``RowReadingStage/read``) and ``RowTextPlan`` both ask this.
    var memberModel: FieldListModel? {
        let single: FieldListModel? =
            switch (model, mapping) {
            case (.fields(let fields)?, nil): fields
            case (nil, let mapping?): mapping
            default: nil
            }
        return single.flatMap { $0.fields.allSatisfy { $0.singleKey != nil } ? $0 : nil }
    }

    /// The model row of `raw`, the `row`-th row of the list, on `page`.
    ///
    /// - Throws: a `.conversion` error with `row` and `page` set, naming the field.
    package func convert(_ raw: JSONValue, row: Int, page: Int) throws(ScreensPipeError) -> JSONValue {
        guard model != nil || mapping != nil else { return raw }
        do throws(ScreensPipeError) {
            var value = raw
            if let model {
                guard case .object(let object) = raw else {
                    throw ScreensPipeError.conversion("expected an object, got \(raw.typeName)")
                }
                value = .object(try model.convert(object, locale: locale, serverURL: serverURL))
            }
            if let mapping {
                value = .object(try mapping.convert(value, locale: locale))
            }
            return value
        } catch {
            var located = error
            located.row = row
            located.page = page
            throw located
        }
    }
}
