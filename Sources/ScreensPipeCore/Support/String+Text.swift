/// Small text helpers shared by the wire formats.
extension String {
    /// `es_ES` -> `es-ES` (HTTP language tags use hyphens; Liferay locales use underscores).
    func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }

    /// The text without any trailing `suffix` characters (`http://host//` -> `http://host`).
    func trimmingSuffix(_ suffix: Character) -> String {
        var copy = self
        while copy.last == suffix { copy.removeLast() }
        return copy
    }
}
