import Foundation
import ScreensBus

#if canImport(Glibc)
    import Glibc
#endif

/// `memory`: how many bytes of heap the parsed tree of a response body takes per byte of
/// body, for the shapes a hostile or an ordinary server sends. A page's body is capped by
/// `max-response-size`; this ratio is what turns that cap into a memory bound.
enum MemoryBenchmark {
    static let shapes: [(name: String, element: String)] = [
        ("small integers [7,7,...]", "7,"),
        ("empty objects [{},...]", "{},"),
        ("tiny objects [{\"a\":1},...]", #"{"a":1},"#),
        ("short strings [\"ab\",...]", #""ab","#),
        ("nested arrays [[[]]],...]", "[[[]]],"),
        ("bookmark rows", #"{"entryId":30001,"groupId":20143,"folderId":0,"name":"Liferay links 01","url":"https://www.liferay.com/liferay/1","description":"","createDate":1700000000000,"visits":3},"#),
    ]

    /// Each shape in a process of its own, so one shape's freed heap cannot hide the next's.
    static func run(_ arguments: [String]) throws {
        let options = try BenchmarkOptions(arguments, valued: ["--megabytes", "--shape"], flags: [])
        let megabytes = try options.int("--megabytes", default: 16)
        if let shape = options.value("--shape").flatMap(Int.init) {
            try measure(shape: shape, megabytes: megabytes)
            return
        }
        print("shape\tbody MiB\tvalues\tRSS growth MiB\tRSS bytes per body byte")
        fflush(nil)
        for index in shapes.indices {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["memory", "--megabytes", String(megabytes), "--shape", String(index)]
            try process.run()
            process.waitUntilExit()
        }
    }

    static func measure(shape index: Int, megabytes: Int) throws {
        let element = shapes[index].element
        let count = megabytes << 20 / element.utf8.count
        var body: [UInt8] = [UInt8(ascii: "[")]
        body.reserveCapacity(count * element.utf8.count + 2)
        for _ in 0..<count { body.append(contentsOf: element.utf8) }
        body[body.count - 1] = UInt8(ascii: "]")
        let before = residentBytes()
        let value = try JSONValue(parsing: body)
        let growth = Double(residentBytes() - before)
        let values = value.arrayValue?.count ?? 0
        let bodyMiB = Double(body.count) / 1_048_576
        print("\(shapes[index].name)\t\(rounded(bodyMiB))\t\(values)\t\(rounded(growth / 1_048_576))\t\(rounded(growth / Double(body.count)))")
        withExtendedLifetime(value) {}
    }

    private static func rounded(_ value: Double) -> String {
        String(Double(Int(value * 10)) / 10)
    }

    /// Resident set size from /proc/self/statm (pages).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
}
