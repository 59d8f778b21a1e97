import ScreensJSON

/// An ordered list of rows that can be sliced by index without materializing it, so the
/// generator can serve any page of a million-row list in constant memory.
enum RowList: Sendable {
    case stored([JSONValue])
    case generated(GeneratedBookmarks)

    var count: Int {
        switch self {
        case .stored(let rows): rows.count
        case .generated(let generator): generator.count
        }
    }

    subscript(index: Int) -> JSONValue {
        switch self {
        case .stored(let rows): rows[index]
        case .generated(let generator): generator.row(at: index)
        }
    }

    /// Rows `range` of the list, minus those the permission filter hides.
    ///
    /// A portal filters by permission after the query is sliced, so a page can come back short
    /// while the count still includes the hidden rows; `hideEvery` reproduces that.
    func page(_ range: Range<Int>, hideEvery: Int?) -> [JSONValue] {
        Self.visibleIndices(range.clamped(to: 0..<count), hideEvery: hideEvery).map { self[$0] }
    }

    /// The indices of `range` the permission filter lets through.
    static func visibleIndices(_ range: Range<Int>, hideEvery: Int?) -> [Int] {
        guard let hideEvery, hideEvery > 0 else { return Array(range) }
        return range.filter { $0 % hideEvery != hideEvery - 1 }
    }
}

/// Liferay's `start`/`end` (end exclusive; `-1`/`-1` means all rows) as a range of a list.
enum LiferayRange {
    static let allPositions: Int64 = -1

    static func range(start: Int64, end: Int64, count: Int) -> Range<Int> {
        if start == allPositions && end == allPositions { return 0..<count }
        let lower = Int(clamping: max(0, start))
        let upper = Int(clamping: min(Int64(count), end))
        return upper <= lower ? 0..<0 : lower..<upper
    }
}
