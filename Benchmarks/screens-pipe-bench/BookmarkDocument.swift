import ScreensBus

/// A realistic page body: an array of Liferay bookmark entries as JSON-WS returns them, with
/// 64-bit ids, epoch-millisecond dates, non-ASCII names, escapes and a nested object.
enum BookmarkDocument {
    static func make(rows: Int) -> JSONValue {
        let names = ["Liferay Portal", "Café con leche ☕", "東京の地図", "Ñandú — guía", "Emoji 😀 links", "Plain bookmark"]
        var entries: [JSONValue] = []
        entries.reserveCapacity(rows)
        for row in 0..<rows {
            let id = Int64(9_007_199_254_740_993) + Int64(row) * 7919 // beyond 2^53 on purpose
            let entry: JSONObject = [
                "entryId": .int(id),
                "uuid": .string("6f1c2a4e-\(String(row, radix: 16))-4d2b-9c1e-7a8b9c0d1e2f"),
                "groupId": 20143,
                "companyId": 20116,
                "userId": .int(20_164 + Int64(row % 50)),
                "userName": "Test Test",
                "createDate": .int(1_700_000_000_000 + Int64(row) * 60_000),
                "modifiedDate": .int(1_700_000_500_000 + Int64(row) * 60_000),
                "folderId": .int(Int64(row % 20)),
                "treePath": .string("/\(row % 20)/"),
                "name": .string("\(names[row % names.count]) #\(row)"),
                "url": .string("https://www.liferay.com/web/guest/bookmarks/\(row)?redirect=%2Fhome&p_l_id=\(row * 3)"),
                "description": .string("Bookmark number \(row) with \"quotes\", a tab\tand a newline\nin the text."),
                "visits": .int(Int64(row % 1000)),
                "priority": 0,
                "status": 0,
                "score": .double(Double(row % 97) / 8.0 + 0.1),
                "expando": [
                    "tags": ["liferay", "bookmark", .string("tag-\(row % 13)")],
                    "rating": .double(Double(row % 50) / 10.0),
                    "featured": .bool(row % 3 == 0),
                    "owner": nil,
                ],
            ]
            entries.append(.object(entry))
        }
        return .array(entries)
    }

    /// Rows as a portal's JSON-WS page holds them most of the time (the sandbox's generated
    /// list): ASCII strings without escapes, integers and a null, 21 members in one order.
    static func makePlain(rows: Int) -> JSONValue {
        var entries: [JSONValue] = []
        entries.reserveCapacity(rows)
        for row in 1...max(rows, 1) {
            let date = JSONValue.int(1_704_067_200_000 + Int64(row - 1) * 60_000)
            let entry: JSONObject = [
                "uuid": .string("00000000-0000-4000-8000-\(String(String(row, radix: 16).reversed()).padding(toLength: 12, withPad: "0", startingAt: 0))"),
                "entryId": .int(9_007_199_254_740_992 + Int64(row)),
                "groupId": 20143, "companyId": 20099, "userId": 20139, "userName": "Test Test",
                "createDate": date, "modifiedDate": date, "resourceBlockId": 0, "folderId": 1_000_000,
                "treePath": "/1000000/", "name": .string("Generated bookmark \(row)"),
                "url": .string("https://example.com/generated/\(row)"), "description": .string("Row \(row) of \(rows)"),
                "visits": .int(Int64(row % 1000)), "priority": .int(Int64(row % 7)), "lastPublishDate": nil,
                "status": 0, "statusByUserId": 20139, "statusByUserName": "Test Test", "statusDate": date,
            ]
            entries.append(.object(entry))
        }
        return .array(Array(entries.prefix(rows)))
    }
}
