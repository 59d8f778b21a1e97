import ScreensBus

extension IncrementalSpec {
    /// The keys `incremental:` accepts.
    static let keys = ["cursor", "in", "type", "initial", "lookback", "end"]
}

extension SpecDecoder {
    /// `incremental: { cursor, in, type, initial, lookback, end }`; every value is checked
    /// against `type` here, so a bad `initial` is a configuration error with its line, not a
    /// failure of the first run.
    func decodeIncremental(_ section: Section) -> IncrementalSpec? {
        section.checkKeys(IncrementalSpec.keys)
        var cursor: FieldPath?
        if let node = section.required("cursor", for: "incremental"), let text = context.nonEmptyString(node, key: "cursor") {
            do throws(ScreensPipeError) {
                cursor = try FieldPath(text)
            } catch {
                context.fail(error.message, at: node.location)
            }
        }
        let type = section.required("type", for: "incremental").flatMap { context.choice($0, key: "type", CursorType.self) }
        let row = section.choice("in", CursorRow.self) ?? .raw
        guard let cursor, let type else { return nil }
        let initial = cursorValue(section, key: "initial", type: type)
        let end = cursorValue(section, key: "end", type: type)
        if let initial, let end, end < initial, let node = section["end"] {
            context.fail("'end' (\(end)) comes before 'initial' (\(initial)): no row could be delivered", at: node.location)
        }
        var lookback: CursorLookback?
        if let node = section["lookback"] {
            switch type {
            case .date:
                if let duration = context.duration(node, key: "lookback", atMost: .seconds(366 * 24 * 3600)) {
                    let (seconds, attoseconds) = duration.components
                    lookback = .duration(milliseconds: seconds * 1000 + attoseconds / Self.attosecondsPerMillisecond)
                }
            case .integer:
                if let amount = context.int(node, key: "lookback", atLeast: 1) { lookback = .amount(Int64(amount)) }
            case .string:
                context.fail("'lookback' needs a date or integer cursor: text has no distance to go back by", at: node.location)
            }
        }
        return IncrementalSpec(
            cursor: cursor, row: row, type: type, initial: initial, lookback: lookback, end: end, location: section.location)
    }

    /// A `rest` query value that says `{cursor}` in a pipeline without `incremental:` would
    /// be sent as those eight characters.
    func refuseUnfilledCursorPlaceholder(in source: SourceSpec, at location: SourceLocation) {
        guard let rest = source.type.settings(as: RESTSourceSpec.self),
            let parameter = rest.query.first(where: { $0.value.contains(IncrementalPushDown.placeholder) })
        else { return }
        context.fail(
            "query parameter '\(parameter.name)' says \(IncrementalPushDown.placeholder), which only an 'incremental:' section fills",
            at: location)
    }

    private static let attosecondsPerMillisecond: Int64 = 1_000_000_000_000 * 1_000

    private func cursorValue(_ section: Section, key: String, type: CursorType) -> CursorValue? {
        guard let node = section[key] else { return nil }
        guard case .scalar(let scalar) = node, !node.isNull else {
            context.fail("expected \(type.article) \(type.rawValue) for '\(key)', found \(node.foundDescription)", at: node.location)
            return nil
        }
        if let value = CursorValue.parse(scalar.text, as: type) { return value }
        let example = switch type {
        case .date: "an ISO 8601 date such as 2026-01-31T10:00:00Z"
        case .integer: "a 64-bit integer such as 1200"
        case .string: "text of at most \(CursorValue.maximumTextLength) bytes"
        }
        context.fail("expected \(example) for '\(key)', found '\(scalar.text.prefix(80))'", at: node.location)
        return nil
    }
}
