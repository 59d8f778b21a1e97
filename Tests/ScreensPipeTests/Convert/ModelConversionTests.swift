import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

@Suite struct ModelConversionTests {
    @Test func bookmarkKeepsA64BitIdAndWritesISODates() throws {
        let converter = try RowConverter(spec: ConvertSpec(model: .bookmark))
        let raw: JSONValue = [
            "companyId": 20116, "createDate": 1_763_716_500_000, "description": "Liferay's home",
            "entryId": 9_007_199_254_740_993, "folderId": 0, "groupId": 20143,
            "modifiedDate": 1_763_716_500_250, "name": "Liferay", "url": "https://www.liferay.com",
            "userName": "Test Test", "visits": 3,
        ]
        let row = try converter.convert(raw, row: 0, page: 0)
        #expect(row == [
            "entryId": .int(9_007_199_254_740_993), "name": "Liferay", "url": "https://www.liferay.com",
            "description": "Liferay's home", "folderId": 0, "groupId": 20143,
            "createDate": "2025-11-21T09:15:00Z", "modifiedDate": "2025-11-21T09:15:00.250Z",
            "userName": "Test Test",
        ])
    }

    @Test func bookmarkWithoutUserNameLeavesItOutAndMissingOptionalsAreNull() throws {
        let converter = try RowConverter(spec: ConvertSpec(model: .bookmark))
        let row = try converter.convert(["entryId": 1, "url": "https://x.org"], row: 3, page: 0)
        #expect(row.objectValue?.keys == ["entryId", "name", "url", "description", "folderId", "groupId", "createDate", "modifiedDate"])
        #expect(row["name"] == .null)
    }

    @Test func bookmarkMissingURLNamesRowPageAndField() throws {
        let converter = try RowConverter(spec: ConvertSpec(model: .bookmark))
        let error = #expect(throws: ScreensPipeError.self) {
            try converter.convert(["entryId": 7, "name": "No URL"], row: 12, page: 1)
        }
        #expect(error?.code == .conversion)
        #expect(error?.row == 12)
        #expect(error?.page == 1)
        #expect(error?.message == "required field 'url' (from 'url') is missing")
        #expect(error?.description == "page 1, row 12: required field 'url' (from 'url') is missing")
    }

    @Test func modelRejectsANonObjectRow() throws {
        let converter = try RowConverter(spec: ConvertSpec(model: .bookmark))
        let error = #expect(throws: ScreensPipeError.self) { try converter.convert([1, 2], row: 0, page: 0) }
        #expect(error?.message == "expected an object, got array")
    }

    @Test func nilSpecPassesRowsThrough() throws {
        let raw: JSONValue = ["anything": [1, "two", nil]]
        #expect(try RowConverter(spec: nil).convert(raw, row: 0, page: 0) == raw)
        #expect(try RowConverter(spec: ConvertSpec(locale: "es_ES")).convert(raw, row: 0, page: 0) == raw)
    }

    @Test func webContentResolvesLocalizedTitleAndStructuredContent() throws {
        let converter = try RowConverter(spec: ConvertSpec(model: .webContent, locale: "es_ES"))
        let raw: JSONValue = [
            "articleId": "40558", "resourcePrimKey": 40560, "groupId": 20143, "folderId": 0, "version": 1.0,
            "title": """
                <?xml version='1.0' encoding='UTF-8'?><root available-locales="en_US,es_ES" default-locale="en_US">\
                <Title language-id="en_US">Tom &amp; Jerry</Title><Title language-id="es_ES">Tom &amp; Jerry &#233;xito</Title></root>
                """,
            "description": "<root available-locales=\"en_US\" default-locale=\"en_US\"><Description language-id=\"en_US\">Only English</Description></root>",
            "content": """
                <?xml version="1.0"?>
                <root available-locales="en_US,es_ES" default-locale="en_US">
                  <dynamic-element name="Headline" type="text" index-type="keyword" instance-id="abcd">
                    <dynamic-content language-id="en_US"><![CDATA[Hello <b>world</b>]]></dynamic-content>
                    <dynamic-content language-id="es_ES"><![CDATA[Hola <b>mundo</b>]]></dynamic-content>
                  </dynamic-element>
                  <dynamic-element name="Body" type="text_area" index-type="text" instance-id="efgh">
                    <dynamic-content language-id="en_US"><![CDATA[<p>English only</p>]]></dynamic-content>
                  </dynamic-element>
                </root>
                """,
            "DDMStructureKey": "NEWS", "createDate": 1_763_716_500_000, "modifiedDate": 1_763_716_500_000,
        ]
        let row = try converter.convert(raw, row: 0, page: 0)
        #expect(row == [
            "articleId": "40558", "resourcePrimKey": 40560, "groupId": 20143, "folderId": 0,
            "title": "Tom & Jerry éxito", "description": "Only English",
            "content": ["Headline": "Hola <b>mundo</b>", "Body": "<p>English only</p>"],
            "ddmStructureKey": "NEWS", "createDate": "2025-11-21T09:15:00Z", "modifiedDate": "2025-11-21T09:15:00Z",
        ])
    }

    @Test func webContentWithStaticContentAndNumericArticleId() throws {
        let converter = try RowConverter(spec: ConvertSpec(model: .webContent, locale: "en-US"))
        let raw: JSONValue = [
            "articleId": 12345, "groupId": 20143, "folderId": 0, "title": "Plain title",
            "content": "<root default-locale=\"en_US\"><static-content language-id=\"en_US\"><![CDATA[<p>Hi & bye</p>]]></static-content></root>",
        ]
        let row = try converter.convert(raw, row: 0, page: 0)
        #expect(row["articleId"] == "12345")
        #expect(row["title"] == "Plain title")
        #expect(row["content"] == "<p>Hi & bye</p>")
        #expect(row["ddmStructureKey"] == nil)
        #expect(row["resourcePrimKey"] == nil)
    }

    @Test func assetResolvesMapAndXMLFormsAndKeepsObject() throws {
        let converter = try RowConverter(spec: ConvertSpec(model: .asset, locale: "es_MX"))
        let raw: JSONValue = [
            "entryId": 30501, "classNameId": 20109, "className": "com.liferay.journal.model.JournalArticle",
            "classPK": 40560, "title": ["en_US": "Welcome", "es_ES": "Bienvenido"],
            "description": "<root available-locales=\"en_US\" default-locale=\"en_US\"><Description language-id=\"en_US\">About us</Description></root>",
            "summary": ["en_US": "Summary"], "createDate": 0,
            "object": ["articleId": "40558"],
        ]
        let row = try converter.convert(raw, row: 0, page: 0)
        #expect(row == [
            "entryId": 30501, "classNameId": 20109, "className": "com.liferay.journal.model.JournalArticle",
            "classPK": 40560, "title": "Bienvenido", "description": "About us", "summary": "Summary",
            "createDate": "1970-01-01T00:00:00Z", "object": ["articleId": "40558"],
        ])
    }

    @Test func ddlRecordFlattensAttributesAndValues() throws {
        let converter = try RowConverter(spec: ConvertSpec(model: .ddlRecord, locale: "es_ES"))
        let raw: JSONValue = [
            "modelAttributes": [
                "recordId": 9_223_372_036_854_775_807, "recordSetId": 31209, "userName": "Ana",
                "createDate": 1_763_716_500_000, "modelValues": "ignored",
            ],
            "modelValues": [
                "Name": ["en_US": "Bike", "es_ES": "Bici"], "Price": 120.5, "Colors": ["red", "blue"],
                "userName": "from the record set",
            ],
        ]
        let row = try converter.convert(raw, row: 0, page: 0)
        #expect(row == [
            "recordId": .int(9_223_372_036_854_775_807), "recordSetId": 31209, "userName": "from the record set",
            "createDate": "2025-11-21T09:15:00Z", "Name": "Bici", "Price": 120.5, "Colors": ["red", "blue"],
        ])
    }

    @Test func ddlRecordWithoutRecordIdFails() throws {
        let converter = try RowConverter(spec: ConvertSpec(model: .ddlRecord))
        let error = #expect(throws: ScreensPipeError.self) {
            try converter.convert(["modelAttributes": ["recordSetId": 1], "modelValues": [:]], row: 4, page: 0)
        }
        #expect(error?.message == "required field 'recordId' (from 'recordId') is missing")
        #expect(error?.row == 4)
    }
}
