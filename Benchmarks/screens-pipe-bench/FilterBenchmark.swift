import ScreensBus
import ScreensPipe

/// Rows per second of compiled filter expressions over 1M bookmark-shaped rows.
///
/// 100,000 distinct rows are built once and filtered ten times, so the figure is the cost
/// of `RowFilter.matches` and not of building rows. Prints one line per expression.
func runFilterBenchmark() {
    let distinctRows = 100_000
    let passes = 10
    let rows = (0..<distinctRows).map(benchmarkRow)
    let expressions = [
        #"url contains "liferay" and not (name starts-with "tmp") and visits >= 10"#,
        #"author.email ends-with "@liferay.com" or tags contains "tag3""#,
        #"visits in [1, 2, 3, 5, 8, 13, 21, 34] and url exists"#,
        #"name matches "^Bookmark [0-9]+5$""#,
    ]
    for expression in expressions {
        let filter: RowFilter
        do {
            filter = try RowFilter(expression: expression)
        } catch {
            print("filter: cannot compile \(expression): \(error)")
            continue
        }
        var selected = 0
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for _ in 0..<passes {
                for row in rows where (try? filter.matches(row)) == true {
                    selected += 1
                }
            }
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let total = distinctRows * passes
        let rate = Int((Double(total) / seconds).rounded())
        print("filter: \(rate) rows/s over \(total) rows (\(selected) selected) for \(expression)")
    }
}

/// A bookmark-shaped row; one in three links to liferay.com, one in seven is "tmp".
private func benchmarkRow(_ index: Int) -> JSONValue {
    var row = JSONObject(minimumCapacity: 6)
    row["entryId"] = .int(9_007_199_254_740_993 + Int64(index))
    row["name"] = .string(index % 7 == 0 ? "tmp bookmark \(index)" : "Bookmark \(index)")
    row["url"] = .string(index % 3 == 0 ? "https://www.liferay.com/page/\(index)" : "https://example.org/\(index)")
    row["visits"] = .int(Int64(index % 50))
    row["author"] = .object(["email": .string("user\(index % 100)@liferay.com")])
    row["tags"] = .array(["portal", .string("tag\(index % 10)")])
    return .object(row)
}
