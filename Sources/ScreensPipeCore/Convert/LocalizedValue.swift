import ScreensBus

/// Liferay's localized values, resolved to one locale.
///
/// A localized value comes in two forms: an XML string
/// (`<root default-locale="en_US"><Title language-id="es_ES">Hola</Title>...</root>`) or a
/// map (`{"en_US": "Hello", "es_ES": "Hola"}`). Journal content is a third, structured
/// form: `dynamic-element`s, each with one `dynamic-content` per locale, which resolves to
/// an object `{fieldName: text}`.
package enum LocalizedValue {
    /// The text of `value` for `locale`.
    ///
    /// The choice, first match wins: the locale itself (`es_ES` and `es-ES` are the same),
    /// another country of the same language (`es_MX` for `es_ES`), the document's default
    /// locale (XML `default-locale`; `en_US` for maps), the first locale present. A value
    /// that is not localized (plain text, a number, an XML string that cannot be read)
    /// comes back unchanged.
    package static func resolve(_ value: JSONValue, locale: String?) -> JSONValue {
        switch value {
        case .string(let text) where XMLReader.looksLikeLiferayDocument(text):
            guard let root = try? XMLReader.parse(text) else { return value }
            return resolve(document: root, locale: locale) ?? value
        case .object(let map) where isLocaleMap(map):
            let index = LocaleMatcher.pick(from: map.keys, locale: locale, defaultLocale: "en_US")
            return index.map { map.values[$0] } ?? value
        default:
            return value
        }
    }

    /// Resolves a parsed `<root>` document; nil when it holds no localized content.
    static func resolve(document root: XMLElement, locale: String?) -> JSONValue? {
        let defaultLocale = root.attribute("default-locale")
        if root.children.contains(where: { $0.name == "dynamic-element" }) {
            var fields = JSONObject()
            collectDynamicElements(of: root, locale: locale, defaultLocale: defaultLocale, into: &fields)
            return .object(fields)
        }
        let localized = root.children.filter { $0.attribute("language-id") != nil }
        guard !localized.isEmpty else { return nil }
        let index = LocaleMatcher.pick(
            from: localized.map { $0.attribute("language-id") ?? "" }, locale: locale, defaultLocale: defaultLocale)
        return index.map { .string(localized[$0].text) }
    }

    /// Adds each `dynamic-element` under `parent` (nested ones too) as `name: text`; a name
    /// that repeats (a repeatable field) collects its values in an array.
    private static func collectDynamicElements(
        of parent: XMLElement, locale: String?, defaultLocale: String?, into fields: inout JSONObject
    ) {
        for element in parent.children where element.name == "dynamic-element" {
            if let name = element.attribute("name") {
                let contents = element.children.filter { $0.name == "dynamic-content" }
                let value: JSONValue
                if contents.isEmpty {
                    value = .null
                } else {
                    let index = LocaleMatcher.pick(
                        from: contents.map { $0.attribute("language-id") ?? "" }, locale: locale,
                        defaultLocale: defaultLocale)
                    value = .string(contents[index ?? 0].text)
                }
                switch fields[name] {
                case nil: fields[name] = value
                case .array(var values)?:
                    values.append(value)
                    fields[name] = .array(values)
                case let first?: fields[name] = .array([first, value])
                }
            }
            collectDynamicElements(of: element, locale: locale, defaultLocale: defaultLocale, into: &fields)
        }
    }

    /// Whether every key of a non-empty object is a `language_COUNTRY` locale (`en_US`,
    /// `es-ES`, `zh_Hans_CN`), which is how Liferay's `…Map` fields look.
    static func isLocaleMap(_ map: JSONObject) -> Bool {
        !map.isEmpty && map.keys.allSatisfy(LocaleMatcher.isLocaleKey)
    }
}

/// Picks the best of a list of locale names for a wanted locale.
enum LocaleMatcher {
    /// The index in `available` of the best match: the locale, its language, the default
    /// locale, then the first one; nil only when `available` is empty.
    static func pick(from available: [String], locale: String?, defaultLocale: String?) -> Int? {
        guard !available.isEmpty else { return nil }
        let normalized = available.map(normalize)
        if let locale {
            let wanted = normalize(locale)
            if let index = normalized.firstIndex(of: wanted) { return index }
            let language = languagePart(wanted)
            if let index = normalized.firstIndex(where: { languagePart($0) == language }) { return index }
        }
        if let defaultLocale, let index = normalized.firstIndex(of: normalize(defaultLocale)) { return index }
        return 0
    }

    /// `es-es` and `es_ES` both become `es_es`, so the two spellings compare equal.
    static func normalize(_ locale: String) -> String {
        locale.lowercased().replacing("-", with: "_")
    }

    private static func languagePart(_ normalized: String) -> Substring {
        normalized.prefix { $0 != "_" }
    }

    /// `xx_YY`, `xxx-YY`, `zh_Hans_CN`: a 2-3 letter language and at least one more part.
    static func isLocaleKey(_ key: String) -> Bool {
        let parts = key.split(separator: "_", omittingEmptySubsequences: false)
            .flatMap { $0.split(separator: "-", omittingEmptySubsequences: false) }
        guard parts.count >= 2, (2...3).contains(parts[0].count),
            parts[0].allSatisfy({ $0.isASCII && $0.isLetter })
        else { return false }
        return parts.dropFirst().allSatisfy { (2...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}
