// A plain import: SwiftPM's generated resource accessor imports Foundation publicly.
import Foundation

/// Text in several locales, as Liferay stores titles and descriptions.
struct LocalizedText: Sendable {
    var defaultLocale: String
    /// Locale id (`en_US`) to text, in document order.
    var values: [(locale: String, text: String)]

    var availableLocales: [String] { values.map(\.locale) }

    /// The text for `locale`, falling back to the default locale, then to the first value.
    func text(for locale: String?) -> String {
        if let locale, let match = values.first(where: { $0.locale == locale }) { return match.text }
        if let match = values.first(where: { $0.locale == defaultLocale }) { return match.text }
        return values.first?.text ?? ""
    }
}

/// One structured field of a web content article's content XML.
struct ContentField: Sendable {
    var name: String
    var type: String
    var values: LocalizedText
}

/// Reads the small XML dialect Liferay uses for localized values and structured content.
///
/// The sample data is written by us, so this is a scanner for that dialect (`<root>` with
/// `language-id` elements, `dynamic-element`/`dynamic-content`, CDATA and the five entities),
/// not a general XML parser.
enum LocalizedXML {
    /// Parses `<root default-locale="en_US"><Title language-id="en_US">...</Title>...</root>`;
    /// plain text that is not XML becomes a value in `en_US`.
    static func parseLocalized(_ xml: String) -> LocalizedText {
        guard xml.contains("<root") else { return LocalizedText(defaultLocale: "en_US", values: [("en_US", xml)]) }
        let defaultLocale = attribute("default-locale", in: xml) ?? "en_US"
        var values: [(String, String)] = []
        var rest = Substring(xml)
        while let marker = rest.range(of: "language-id=\"") {
            let afterMarker = rest[marker.upperBound...]
            guard let quote = afterMarker.firstIndex(of: "\""),
                let open = afterMarker[quote...].firstIndex(of: ">")
            else { break }
            let text = afterMarker[afterMarker.index(after: open)...]
            // CDATA may hold markup of its own (`<p>...</p>`), so it ends at `]]>`, not at the first `</`.
            let end = text.hasPrefix("<![CDATA[") ? text.range(of: "]]>").map { $0.upperBound } : text.range(of: "</")?.lowerBound
            guard let end else { break }
            values.append((String(afterMarker[..<quote]), decode(text[..<end])))
            rest = text[end...]
        }
        return LocalizedText(defaultLocale: defaultLocale, values: values)
    }

    /// Parses the `dynamic-element` fields of a structured content document.
    static func parseContent(_ xml: String) -> [ContentField] {
        let defaultLocale = attribute("default-locale", in: xml) ?? "en_US"
        var fields: [ContentField] = []
        var rest = Substring(xml)
        while let start = rest.range(of: "<dynamic-element ") {
            guard let end = rest[start.upperBound...].range(of: "</dynamic-element>") else { break }
            let element = rest[start.lowerBound..<end.upperBound]
            let tag = element[..<(element.firstIndex(of: ">") ?? element.endIndex)]
            let values = parseLocalized("<root>" + element)
            fields.append(
                ContentField(
                    name: attribute("name", in: tag) ?? "",
                    type: attribute("type", in: tag) ?? "text",
                    values: LocalizedText(defaultLocale: defaultLocale, values: values.values)))
            rest = rest[end.upperBound...]
        }
        return fields
    }

    private static func attribute(_ name: String, in text: some StringProtocol) -> String? {
        guard let marker = text.range(of: " \(name)=\"") else { return nil }
        let value = text[marker.upperBound...]
        guard let quote = value.firstIndex(of: "\"") else { return nil }
        return String(value[..<quote])
    }

    private static func decode(_ text: Substring) -> String {
        if text.hasPrefix("<![CDATA["), text.hasSuffix("]]>") {
            return String(text.dropFirst(9).dropLast(3))
        }
        guard text.contains("&") else { return String(text) }
        return String(text)
            .replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
