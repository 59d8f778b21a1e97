import ScreensJSON

/// A deterministic bookmarks folder of any size, computed row by row from the index.
///
/// Benchmarks page through a million rows; keeping them in memory or on disk would measure
/// the sandbox instead of the client. Ids start at 2^53 + 1 so every generated row also
/// checks that 64-bit ids survive the trip exactly.
struct GeneratedBookmarks: Sendable {
    /// The group and folder the generated rows live in (JSON-WS and REST `generated`).
    static let groupId: Int64 = 20143
    static let folderId: Int64 = 1_000_000
    static let firstEntryId: Int64 = 9_007_199_254_740_993
    private static let baseDate: Int64 = 1_704_067_200_000

    let count: Int
    /// Served newest first (a date comparator): position 0 is the last generated row.
    var newestFirst = false

    func row(at position: Int) -> JSONValue {
        let index = newestFirst ? count - 1 - position : position
        let number = index + 1
        let date = Self.baseDate + Int64(index) * 60_000
        var row = JSONObject(minimumCapacity: 21)
        row.appendUnchecked(key: "uuid", value: .string(Self.uuid(number)))
        row.appendUnchecked(key: "entryId", value: .int(Self.firstEntryId + Int64(index)))
        row.appendUnchecked(key: "groupId", value: .int(Self.groupId))
        row.appendUnchecked(key: "companyId", value: .int(20099))
        row.appendUnchecked(key: "userId", value: .int(20139))
        row.appendUnchecked(key: "userName", value: "Test Test")
        row.appendUnchecked(key: "createDate", value: .int(date))
        row.appendUnchecked(key: "modifiedDate", value: .int(date))
        row.appendUnchecked(key: "resourceBlockId", value: .int(0))
        row.appendUnchecked(key: "folderId", value: .int(Self.folderId))
        row.appendUnchecked(key: "treePath", value: "/1000000/")
        row.appendUnchecked(key: "name", value: .string("Generated bookmark \(number)"))
        row.appendUnchecked(key: "url", value: .string("https://example.com/generated/\(number)"))
        row.appendUnchecked(key: "description", value: .string("Row \(number) of \(count)"))
        row.appendUnchecked(key: "visits", value: .int(Int64(index % 97)))
        row.appendUnchecked(key: "priority", value: .int(Int64(index % 3)))
        row.appendUnchecked(key: "lastPublishDate", value: .null)
        row.appendUnchecked(key: "status", value: .int(0))
        row.appendUnchecked(key: "statusByUserId", value: .int(20139))
        row.appendUnchecked(key: "statusByUserName", value: "Test Test")
        row.appendUnchecked(key: "statusDate", value: .int(date))
        return .object(row)
    }

    /// A UUID-shaped text unique to the row number, so generated rows carry every BookmarksEntry column.
    private static func uuid(_ number: Int) -> String {
        let hex = String(number, radix: 16)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
    }
}
