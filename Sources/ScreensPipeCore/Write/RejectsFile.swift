import ScreensBus

/// The rows a write refused, one JSON line each: `{"line":N,"reason":"...","input":"..."}`,
/// the input line as read (invalid UTF-8 replaced), so the file can be fixed and fed back.
///
/// Opened at the first reject, written atomically (a run that fails keeps `.partial`).
final class RejectsFile: @unchecked Sendable {  // used by the one task that runs the write
    let path: String
    private var output: OutputFile?
    private(set) var count = 0
    /// The reason of the last row refused.
    private(set) var lastReason: String?

    init(path: String) {
        self.path = path
    }

    func append(line: Int, input: String?, truncated: Bool, reason: String) throws(ScreensPipeError) {
        if output == nil { output = try OutputFile.file(at: path) }
        var record: JSONObject = ["line": .int(Int64(line)), "reason": .string(reason)]
        if let input { record["input"] = .string(input) }
        if truncated { record["truncated"] = true }
        do {
            try output?.write(JSONValue.object(record).jsonBytes + [UInt8(ascii: "\n")])
        } catch {
            throw ScreensPipeError.io("cannot write the rejects file \(path): \(error)")
        }
        count += 1
        lastReason = reason
    }

    /// Closes the file; its path when anything was rejected.
    func close(succeeded: Bool = true) throws(ScreensPipeError) -> String? {
        guard let output else { return nil }
        self.output = nil
        do {
            _ = try output.close(succeeded: succeeded)
        } catch {
            throw ScreensPipeError.io("cannot finish the rejects file \(path): \(error)")
        }
        return path
    }
}
