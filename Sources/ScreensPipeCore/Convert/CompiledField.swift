import ScreensBus
import Synchronization

/// One output field, checked once when the converter is built and applied to every row.
///
/// Both the user's `fields:` mapping and the built-in models are lists of these, so a
/// model field and a mapped field are read, localized, coerced and reported the same way.
struct CompiledField: Sendable {
    /// What to write when the source is missing or null, there is no default and the
    /// field is not required.
    enum WhenMissing: Sendable {
        /// Write `null`, so every row has the same keys (the `fields:` mapping).
        case null
        /// Leave the key out (a model's "if present" fields).
        case omit
    }

    let name: String
    /// The path as the user wrote it, for messages.
    let source: String
    let path: FieldPath
    let type: FieldType?
    /// Already coerced to `type`.
    let defaultValue: JSONValue?
    let required: Bool
    let localized: Bool
    let whenMissing: WhenMissing

    /// A field of a `fields:` mapping; a bad path or a default that does not fit the type
    /// is a configuration error at the mapping's location.
    init(mapping: FieldMapping) throws(ScreensPipeError) {
        func configurationError(_ message: String) -> ScreensPipeError {
            ScreensPipeError.configuration("convert field '\(mapping.name)': \(message)", at: mapping.location)
        }
        guard !mapping.name.isEmpty else { throw configurationError("the output name is empty") }
        let path: FieldPath
        do {
            path = try FieldPath(mapping.from)
        } catch {
            throw configurationError(error.message)
        }
        var defaultValue = mapping.defaultValue
        if let given = defaultValue, !given.isNull, let type = mapping.type {
            guard let coerced = FieldCoercion.coerce(given, to: type) else {
                throw configurationError("default \(given.briefDescription) is not a valid \(type.rawValue)")
            }
            defaultValue = coerced
        } else if defaultValue?.isNull == true {
            defaultValue = nil
        }
        self.init(
            name: mapping.name, source: mapping.from, path: path, type: mapping.type, defaultValue: defaultValue,
            required: mapping.required, localized: mapping.localized, whenMissing: .null)
    }

    init(
        name: String, source: String, path: FieldPath, type: FieldType?, defaultValue: JSONValue? = nil,
        required: Bool = false, localized: Bool = false, whenMissing: WhenMissing
    ) {
        self.name = name
        self.source = source
        self.path = path
        self.type = type
        self.defaultValue = defaultValue
        self.required = required
        self.localized = localized
        self.whenMissing = whenMissing
    }

    /// A built-in model's field reading the member `key`.
    static func model(
        _ name: String, from key: String? = nil, _ type: FieldType?, required: Bool = false, localized: Bool = false,
        whenMissing: WhenMissing = .null
    ) -> CompiledField {
        let key = key ?? name
        return CompiledField(
            name: name, source: key, path: FieldPath(components: [.key(key)]), type: type, required: required,
            localized: localized, whenMissing: whenMissing)
    }

    /// Reads, localizes and coerces the field of `row` into `output`.
    ///
    /// - Throws: a `.conversion` error naming the field (the converter adds row and page).
    /// `output` holds only the fields before this one, none named `name` (the list's names
    /// are checked unique), so members are appended without a search.
    func apply(to row: JSONValue, locale: String?, into output: inout JSONObject) throws(ScreensPipeError) {
        try apply(found: path.resolve(in: row), locale: locale, into: &output)
    }

    /// The member a one-step path reads (`entryId`), for lookups by position; nil for a
    /// longer path.
    var singleKey: String? {
        if path.components.count == 1, case .key(let key) = path.components[0] { return key }
        return nil
    }

    /// Localizes and coerces `found`, the field's source value (nil when missing), into `output`.
    func apply(found: JSONValue?, locale: String?, into output: inout JSONObject) throws(ScreensPipeError) {
        var value = found
        if let found = value, localized {
            value = LocalizedValue.resolve(found, locale: locale)
        }
        guard let present = value, !present.isNull else {
            if let defaultValue {
                output.appendUnchecked(key: name, value: defaultValue)
            } else if required {
                throw ScreensPipeError.conversion("required field '\(name)' (from '\(source)') is missing")
            } else if whenMissing == .null {
                output.appendUnchecked(key: name, value: .null)
            }
            return
        }
        guard let type else {
            output.appendUnchecked(key: name, value: present)
            return
        }
        guard let coerced = FieldCoercion.coerce(present, to: type) else {
            throw ScreensPipeError(
                .conversion,
                "field '\(name)' (from '\(source)'): cannot convert \(present.briefDescription) (\(present.typeName)) to \(type.rawValue)")
        }
        output.appendUnchecked(key: name, value: coerced)
    }
}

/// A list of fields applied in order: the `fields:` mapping, and the declarative models.
struct FieldListModel: Sendable {
    let fields: [CompiledField]
    /// Where each field's member is in rows of the last shape seen (see ``FieldPositions``).
    private let positions = FieldPositions()

    /// Checks the mapping: valid paths and defaults, no output name twice.
    init(mappings: [FieldMapping]) throws(ScreensPipeError) {
        var fields: [CompiledField] = []
        var seen: Set<String> = []
        for mapping in mappings {
            guard seen.insert(mapping.name).inserted else {
                throw ScreensPipeError(
                    .configuration, "convert field '\(mapping.name)' is mapped twice", location: mapping.location)
            }
            fields.append(try CompiledField(mapping: mapping))
        }
        self.fields = fields
    }

    init(fields: [CompiledField]) {
        assert(Set(fields.map(\.name)).count == fields.count, "a model names an output field twice")
        self.fields = fields
    }

    /// The output row: the fields in their order.
    func convert(_ row: JSONValue, locale: String?) throws(ScreensPipeError) -> JSONObject {
        var output = JSONObject(minimumCapacity: fields.count)
        guard case .object(let object) = row else {
            for field in fields {
                try field.apply(to: row, locale: locale, into: &output)
            }
            return output
        }
        // Rows of a list share one shape: each field's position is found once per shape,
        // not by a scan of the keys per field per row.
        let found = positions.positions(of: fields, in: object.keys)
        for (position, field) in fields.enumerated() {
            let member = found[position]
            let value: JSONValue? =
                switch member {
                case FieldPositions.missing: nil
                case FieldPositions.notOneKey: field.path.resolve(in: row)
                default: object.values[member]
                }
            try field.apply(found: value, locale: locale, into: &output)
        }
        return output
    }
}

/// The position of each field's member in rows of one shape (one list of keys), kept for
/// the last shape seen.
///
/// A row's member is the last one with the key (as ``JSONObject``'s lookup reads it), so a
/// position found by `lastIndex(of:)` in a row with the same keys, in the same order, is the
/// one a lookup would find. The parser gives rows of one shape the same key strings, so the
/// comparison of two rows' keys is mostly a comparison of identical strings.
final class FieldPositions: Sendable {
    /// The field reads a longer path: resolved in the row itself.
    static let notOneKey = -2
    /// The row has no member with the field's key.
    static let missing = -1

    private let last = Mutex<(keys: [String], positions: [Int])>(([], []))

    func positions(of fields: [CompiledField], in keys: [String]) -> [Int] {
        last.withLock { last in
            if last.keys == keys, last.positions.count == fields.count { return last.positions }
            let positions = fields.map { field in
                field.singleKey.map { keys.lastIndex(of: $0) ?? Self.missing } ?? Self.notOneKey
            }
            last = (keys, positions)
            return positions
        }
    }
}
