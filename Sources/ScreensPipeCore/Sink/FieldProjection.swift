import ScreensBus

/// `sink.fields` / `--fields`: the columns a reader asked for, in their order.
///
/// Applied in the sink only, so every other subscriber of the bus still sees whole rows.
/// A field's name in the output is its path as written (`author.email`); a path that leads
/// nowhere in a row gives `null`, so every projected row has the same keys in the same order.
struct FieldProjection: Sendable {
    let paths: [FieldPath]
    let names: [String]

    init(_ paths: [FieldPath]) {
        self.paths = paths
        names = paths.map(\.description)
    }

    /// The projected row: one member per field, missing values as `null`.
    func project(_ row: JSONValue) -> JSONValue {
        var object = JSONObject()
        for (name, path) in zip(names, paths) where object[name] == nil {
            object[name] = path.resolve(in: row) ?? .null
        }
        return .object(object)
    }

    /// `selected` events carry the projected row; every other event is unchanged.
    func project(_ event: PipelineEvent) -> PipelineEvent {
        guard case .selected(var selected) = event else { return event }
        selected.item = project(selected.item)
        return .selected(selected)
    }
}
