import ScreensBus
import Testing

@testable import ScreensPipeCore
import ScreensPipe

@Suite struct FieldMappingTests {
    private func converter(_ fields: [FieldMapping], model: ModelKind? = nil, locale: String? = nil) throws -> RowConverter {
        try RowConverter(spec: ConvertSpec(model: model, locale: locale, fields: fields))
    }

    @Test func mapsNestedPathsAndIndexesInMappingOrder() throws {
        let converter = try converter([
            FieldMapping(name: "id", from: "entryId"),
            FieldMapping(name: "email", from: "author.email"),
            FieldMapping(name: "firstTag", from: "tags[0]"),
            FieldMapping(name: "lastTag", from: "tags[-1]"),
            FieldMapping(name: "dotted", from: "meta[\"key with.dot\"]"),
        ])
        let row = try converter.convert(
            ["tags": ["a", "b", "c"], "author": ["email": "ana@x.org"], "entryId": 5, "meta": ["key with.dot": true]],
            row: 0, page: 0)
        #expect(row.objectValue?.keys == ["id", "email", "firstTag", "lastTag", "dotted"])
        #expect(row == ["id": 5, "email": "ana@x.org", "firstTag": "a", "lastTag": "c", "dotted": true])
    }

    @Test("positions found once per row shape read what a lookup reads: shapes that alternate, a repeated key (the last wins), a missing member, a nested path")
    func positionsPerShape() throws {
        let converter = try converter([
            FieldMapping(name: "id", from: "entryId"),
            FieldMapping(name: "url", from: "url"),
            FieldMapping(name: "email", from: "author.email"),
        ])
        // A repeated key as a parser keeps it: both members, in order.
        func repeated(_ id: Int64, _ first: String, _ second: String) -> JSONValue {
            var object = JSONObject()
            object.appendUnchecked(key: "entryId", value: .int(id))
            object.appendUnchecked(key: "url", value: .string(first))
            object.appendUnchecked(key: "url", value: .string(second))
            return .object(object)
        }
        let rows: [JSONValue] = [
            ["entryId": 1, "url": "a", "author": ["email": "x"]],
            ["url": "b", "entryId": 2, "author": ["email": "y"]],
            ["entryId": 3, "url": "c", "author": ["email": "z"]],
            repeated(4, "d1", "d2"),
            ["entryId": 5],
            repeated(6, "e1", "e2"),
            ["entryId": 7, "url": "f", "author": ["email": "w"]],
        ]
        for (index, row) in rows.enumerated() {
            let expected: JSONValue = [
                "id": row["entryId"] ?? .null, "url": row["url"] ?? .null, "email": row["author"]?["email"] ?? .null,
            ]
            #expect(try converter.convert(row, row: index, page: 0) == expected, "row \(index)")
        }
        // JSONObject's lookup, and so the converter, reads the last of a repeated key.
        #expect(try converter.convert(rows[3], row: 3, page: 0)["url"] == "d2")
    }

    @Test(arguments: [
        (FieldType.int, JSONValue.string("42"), JSONValue.int(42)),
        (.int, .string(" -7 "), .int(-7)),
        (.int, .double(1.0), .int(1)),
        (.int, .string("3.0"), .int(3)),
        (.number, .string("2.5"), .double(2.5)),
        (.number, .string("10"), .int(10)),
        (.number, .int(4), .int(4)),
        (.bool, .string("true"), .bool(true)),
        (.bool, .string("FALSE"), .bool(false)),
        (.bool, .int(1), .bool(true)),
        (.string, .int(9_007_199_254_740_993), .string("9007199254740993")),
        (.string, .bool(false), .string("false")),
        (.string, .double(2.0), .string("2")),
        (.date, .int(1_795_252_500_000), .string("2026-11-21T09:15:00Z")),
        (.date, .int(1_795_252_500_007), .string("2026-11-21T09:15:00.007Z")),
        (.date, .string("1795252500000"), .string("2026-11-21T09:15:00Z")),
        (.date, .string("2026-11-21T10:15:00+01:00"), .string("2026-11-21T09:15:00Z")),
        (.date, .string("2026-11-21T09:15:00.5Z"), .string("2026-11-21T09:15:00.500Z")),
        (.date, .string("2026-11-21"), .string("2026-11-21T00:00:00Z")),
        (.date, .int(-1), .string("1969-12-31T23:59:59.999Z")),
        (.date, .string("2024-02-29 23:59:59"), .string("2024-02-29T23:59:59Z")),
    ])
    func coercesValues(type: FieldType, input: JSONValue, expected: JSONValue) throws {
        let converter = try converter([FieldMapping(name: "v", from: "v", type: type)])
        #expect(try converter.convert(["v": input], row: 0, page: 0) == ["v": expected])
    }

    @Test(arguments: [
        (FieldType.int, JSONValue.string("42abc"), "\"42abc\" (string) to int"),
        (.int, .double(1.5), "1.5 (number) to int"),
        (.int, .bool(true), "true (bool) to int"),
        (.bool, .string("yes"), "\"yes\" (string) to bool"),
        (.number, .string("NaN"), "\"NaN\" (string) to number"),
        (.date, .string("2026-02-30"), "\"2026-02-30\" (string) to date"),
        (.date, .string("yesterday"), "\"yesterday\" (string) to date"),
        (.string, .array([1]), "[1 element] (array) to string"),
    ])
    func refusesLossyCoercionsNamingRowFieldValueAndType(type: FieldType, input: JSONValue, message: String) throws {
        let converter = try converter([FieldMapping(name: "out", from: "in", type: type)])
        let error = #expect(throws: ScreensPipeError.self) { try converter.convert(["in": input], row: 8, page: 2) }
        #expect(error?.code == .conversion)
        #expect(error?.row == 8)
        #expect(error?.page == 2)
        #expect(error?.message == "field 'out' (from 'in'): cannot convert " + message)
    }

    @Test func defaultIsUsedForMissingAndNullAndIsCoerced() throws {
        let converter = try converter([
            FieldMapping(name: "count", from: "count", type: .int, defaultValue: "0", required: true),
            FieldMapping(name: "note", from: "note"),
        ])
        #expect(try converter.convert([:], row: 0, page: 0) == ["count": 0, "note": nil])
        #expect(try converter.convert(["count": nil], row: 0, page: 0) == ["count": 0, "note": nil])
        #expect(try converter.convert(["count": "5", "note": "n"], row: 0, page: 0) == ["count": 5, "note": "n"])
    }

    @Test func requiredFieldMissingIsAnError() throws {
        let converter = try converter([FieldMapping(name: "link", from: "links.self", required: true)])
        let error = #expect(throws: ScreensPipeError.self) { try converter.convert(["links": [:]], row: 1, page: 0) }
        #expect(error?.message == "required field 'link' (from 'links.self') is missing")
    }

    @Test func localizedFieldResolvesToTheLocale() throws {
        let converter = try converter(
            [FieldMapping(name: "title", from: "titleMap", localized: true)], locale: "es_ES")
        let row = try converter.convert(["titleMap": ["en_US": "Hello", "es_ES": "Hola"]], row: 0, page: 0)
        #expect(row == ["title": "Hola"])
    }

    @Test func mappingAppliesOnTopOfAModel() throws {
        let converter = try converter(
            [FieldMapping(name: "id", from: "entryId", type: .string), FieldMapping(name: "created", from: "createDate")],
            model: .bookmark)
        let row = try converter.convert(["entryId": 11, "url": "u", "createDate": 0], row: 0, page: 0)
        #expect(row == ["id": "11", "created": "1970-01-01T00:00:00Z"])
    }

    @Test func invalidSpecsAreConfigurationErrorsAtTheFieldLocation() throws {
        let location = ScreensPipe.SourceLocation(file: "p.yaml", line: 9, column: 7)
        let badPath = #expect(throws: ScreensPipeError.self) {
            try converter([FieldMapping(name: "x", from: "a..b", location: location)])
        }
        #expect(badPath?.code == .configuration)
        #expect(badPath?.location == location)
        #expect(badPath?.message == "convert field 'x': invalid field path 'a..b': expected a field name, found '.' at column 3")

        let badDefault = #expect(throws: ScreensPipeError.self) {
            try converter([FieldMapping(name: "n", from: "n", type: .int, defaultValue: "many")])
        }
        #expect(badDefault?.message == "convert field 'n': default \"many\" is not a valid int")

        let twice = #expect(throws: ScreensPipeError.self) {
            try converter([FieldMapping(name: "n", from: "a"), FieldMapping(name: "n", from: "b")])
        }
        #expect(twice?.message == "convert field 'n' is mapped twice")
    }
}
