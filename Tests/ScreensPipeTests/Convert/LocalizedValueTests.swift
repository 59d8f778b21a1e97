import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

@Suite struct LocalizedValueTests {
    static let xml: JSONValue = """
        <?xml version='1.0' encoding='UTF-8'?>
        <root available-locales="en_US,es_ES,es_MX,fr_FR" default-locale="fr_FR">
          <Title language-id="en_US">Fish &amp; Chips &lt;3 &quot;q&quot; &apos;a&apos; &#65;&#x42; &#x1F600;</Title>
          <Title language-id="es_ES"><![CDATA[Pescado <b>& patatas</b>]]></Title>
          <Title language-id="es_MX">Pescado mx</Title>
          <!-- a comment -->
          <Title language-id="fr_FR">Poisson</Title>
        </root>
        """

    @Test(arguments: [
        ("en_US", "Fish & Chips <3 \"q\" 'a' AB 😀"),
        ("es_ES", "Pescado <b>& patatas</b>"),
        ("es-ES", "Pescado <b>& patatas</b>"),
        ("ES_es", "Pescado <b>& patatas</b>"),
        ("es_AR", "Pescado <b>& patatas</b>"),
        ("de_DE", "Poisson"),
    ])
    func xmlPicksLocaleThenLanguageThenDefault(locale: String, expected: String) {
        #expect(LocalizedValue.resolve(Self.xml, locale: locale) == .string(expected))
    }

    @Test func xmlWithoutLocaleUsesTheDefaultLocale() {
        #expect(LocalizedValue.resolve(Self.xml, locale: nil) == "Poisson")
    }

    @Test func xmlWhoseDefaultLocaleIsMissingFallsBackToTheFirstEntry() {
        let xml: JSONValue = "<root default-locale=\"en_US\"><T language-id=\"pt_BR\">Olá</T><T language-id=\"it_IT\">Ciao</T></root>"
        #expect(LocalizedValue.resolve(xml, locale: "de_DE") == "Olá")
    }

    @Test func mapFormPicksLocaleThenLanguageThenEnglishThenFirst() {
        let map: JSONValue = ["fr_FR": "Bonjour", "en_US": "Hello", "es_MX": "Hola"]
        #expect(LocalizedValue.resolve(map, locale: "fr_FR") == "Bonjour")
        #expect(LocalizedValue.resolve(map, locale: "es_ES") == "Hola")
        #expect(LocalizedValue.resolve(map, locale: "de_DE") == "Hello")
        #expect(LocalizedValue.resolve(map, locale: nil) == "Hello")
        #expect(LocalizedValue.resolve(["it_IT": "Ciao", "pt_BR": "Olá"], locale: "de_DE") == "Ciao")
    }

    @Test(arguments: [
        JSONValue.string("Plain text"),
        .string("<p>HTML, not a localized document</p>"),
        .string("<root default-locale=\"en_US\"><T language-id=\"en_US\">broken</root>"),
        .string("<root><Other>no language ids</Other></root>"),
        .int(5),
        .null,
        ["id": "not a locale map"],
        ["en_US": "Hello", "count": 3],
        [:],
    ])
    func valuesThatAreNotLocalizedComeBackUnchanged(value: JSONValue) {
        #expect(LocalizedValue.resolve(value, locale: "es_ES") == value)
    }

    @Test func structuredContentBecomesAnObjectOfFieldsForTheLocale() {
        let content: JSONValue = """
            <root available-locales="en_US,es_ES" default-locale="en_US">
              <dynamic-element name="Title" type="text" index-type="keyword" instance-id="a1">
                <dynamic-content language-id="en_US"><![CDATA[Hello]]></dynamic-content>
                <dynamic-content language-id="es_ES"><![CDATA[Hola]]></dynamic-content>
              </dynamic-element>
              <dynamic-element name="Tag" type="text" index-type="keyword" instance-id="b1">
                <dynamic-content language-id="en_US">one</dynamic-content>
              </dynamic-element>
              <dynamic-element name="Tag" type="text" index-type="keyword" instance-id="b2">
                <dynamic-content language-id="en_US">two</dynamic-content>
                <dynamic-element name="Caption" type="text" index-type="keyword" instance-id="c1">
                  <dynamic-content language-id="es_ES">Leyenda &amp; más</dynamic-content>
                </dynamic-element>
              </dynamic-element>
              <dynamic-element name="Empty" type="text" index-type="keyword" instance-id="d1"/>
            </root>
            """
        #expect(LocalizedValue.resolve(content, locale: "es_ES") == [
            "Title": "Hola", "Tag": ["one", "two"], "Caption": "Leyenda & más", "Empty": nil,
        ])
        #expect(LocalizedValue.resolve(content, locale: nil)["Title"] == "Hello")
    }
}

/// Localized XML comes from servers: nesting is bounded, so a hostile document is a value
/// kept as it came, never a stack overflow (50,000 nested elements once crashed the run).
@Suite struct LocalizedXMLDepthTests {
    static func nested(_ depth: Int) -> String {
        "<root default-locale=\"en_US\"><Title language-id=\"en_US\">"
            + String(repeating: "<a>", count: depth) + "x" + String(repeating: "</a>", count: depth)
            + "</Title></root>"
    }

    @Test func fiftyThousandNestedElementsAreASyntaxErrorNotACrash() {
        #expect(throws: XMLSyntaxError.self) { try XMLReader.parse(Self.nested(50_000)) }
        let raw = JSONValue.string(Self.nested(50_000))
        #expect(LocalizedValue.resolve(raw, locale: "en_US") == raw)
    }

    @Test func theDepthLimitIsExact() throws {
        // The root and Title take two levels.
        let deepest = try XMLReader.parse(Self.nested(XMLReader.maximumDepth - 2))
        #expect(deepest.name == "root")
        #expect(throws: XMLSyntaxError.self) { try XMLReader.parse(Self.nested(XMLReader.maximumDepth - 1)) }
    }

    @Test func deepUnclosedAndDeepDynamicElementsAreBounded() {
        let unclosed = "<root>" + String(repeating: "<dynamic-element name=\"a\">", count: 100_000)
        #expect(throws: XMLSyntaxError.self) { try XMLReader.parse(unclosed) }
        let dynamic = "<root>" + String(repeating: "<dynamic-element name=\"a\">", count: 300)
            + String(repeating: "</dynamic-element>", count: 300) + "</root>"
        let raw = JSONValue.string(dynamic)
        #expect(LocalizedValue.resolve(raw, locale: "en_US") == raw)
    }
}
