internal import Logging
import ScreensBus

/// Uploads one document exactly once: the one loop every upload goes through (an image
/// row of `service: image`, a document field of `service: ddl-record`).
///
/// The upload is recorded pending in the journal before its request, so a run killed or
/// cancelled mid-transfer leaves the next run the question "maybe", which it answers by
/// looking the folder up for the row's title and size before it sends the file again. An
/// upload whose answer is lost is looked up the same way before any resend. Each upload's
/// progress is published as `progress` events (bytes sent, total; never decreasing).
struct DocumentUploader {
    /// What an upload came to.
    enum Result {
        /// The stored file entry (JSON-WS) or `Document` (headless): from the answer, or
        /// found by the lookup that settled a lost one.
        case stored(JSONValue)
        /// The portal refused it, or nothing reached it whole: nothing was stored. The
        /// reason says which, in words for a rejects file.
        case refused(String)
    }

    /// An upload's result, with the requests it took and whether the last was answered
    /// (a `response` event is due).
    struct Outcome {
        var result: Result
        var requests = 0
        var answered = false
    }

    let transport: ImageUploadTransport
    let journal: WriteJournal?
    let bus: EventBus
    let pipeline: String

    /// Uploads `row`, first looking it up when an earlier attempt (`undecided`: the
    /// journal says pending) may have stored it.
    func upload(_ row: ImageRow, undecided: Bool) async throws(ScreensPipeError) -> Outcome {
        var outcome = Outcome(result: .refused(""))
        if undecided, let entry = try await transport.lookupEntry(row) {
            outcome.result = .stored(entry)
            return outcome
        }
        var attempt = 1
        while true {
            try await journal?.record([(row: row, state: WriteJournal.State.pending, entryId: Int64?.none)])
            outcome.requests += 1
            switch try await send(row) {
            case .stored(let entry):
                outcome.answered = true
                outcome.result = .stored(entry)
                return outcome
            case .refused(let error):
                outcome.answered = true
                try await journal?.forget([row])
                outcome.result = .refused(Self.reason(error))
                return outcome
            case .notSent(let reason):
                try await journal?.forget([row])
                outcome.result = .refused("the upload did not reach the portal whole: \(reason)")
                return outcome
            case .ambiguous(let reason):
                guard attempt < transport.settings.retry.attempts else {
                    throw ScreensPipeError.connectivity(
                        "line \(row.line) (\(row.file)) got no answer after \(attempt) attempts (\(reason)); the journal keeps it pending, and a rerun looks it up before uploading")
                }
                let delay = transport.settings.retry.exponentialDelay(beforeRetry: attempt)
                attempt += 1
                transport.settings.logger.warning("line \(row.line) got no answer (\(reason)); looking it up before uploading again")
                do { try await Task.sleep(for: delay) } catch { throw ScreensPipeError(.cancelled, "the write was cancelled") }
                if let entry = try await transport.lookupEntry(row) {
                    outcome.result = .stored(entry)
                    return outcome
                }
            }
        }
    }

    /// `--dry-run`: the upload's `request` event, the request as it would be sent
    /// (credentials redacted) and its parameters, the file named, never read.
    func plan(_ row: ImageRow) async throws(ScreensPipeError) {
        let request = try transport.request(row, onProgress: nil)
        var headers = JSONObject()
        for field in request.shownHeaders { headers[field.name] = .string(field.value) }
        let file = JSONValue.string("\(row.file) (\(row.size) bytes, \(row.mimeType), streamed)")
        let body: JSONValue = transport.headless != nil ? ["document": ImageUploadTransport.document(row), "file": file] : [
            "repositoryId": .int(row.repositoryId), "folderId": .int(row.folderId), "sourceFileName": .string(row.sourceFileName),
            "mimeType": .string(row.mimeType), "title": .string(row.title), "description": .string(row.description),
            "changeLog": .string(row.changeLog), "file": .string("\(row.file) (\(row.size) bytes, streamed)"),
        ]
        await bus.publish(
            custom: "request", pipeline: pipeline, payload: ["request": .string(request.requestDescription), "headers": .object(headers), "body": body])
    }

    /// The upload, its progress published as `progress` events before its outcome.
    private func send(_ row: ImageRow) async throws(ScreensPipeError) -> ImageUploadTransport.Answer {
        let (stream, continuation) = AsyncStream.makeStream(of: (sent: Int64, total: Int64).self, bufferingPolicy: .bufferingNewest(16))
        let bus = bus
        let pipeline = pipeline
        let line = Int64(row.line)
        let file = row.file
        let publisher = Task {
            for await progress in stream {
                await bus.publish(
                    custom: "progress", pipeline: pipeline,
                    payload: ["line": .int(line), "file": .string(file), "sent": .int(progress.sent), "total": .int(progress.total)])
            }
        }
        defer { continuation.finish() }
        let request = try transport.request(row) { sent, total in _ = continuation.yield((sent, total)) }
        do throws(ScreensPipeError) {
            let answer = try await transport.upload(request)
            continuation.finish()
            await publisher.value
            return answer
        } catch {
            continuation.finish()
            await publisher.value
            throw error
        }
    }

    /// The portal's refusal in words for a rejects file: its exception and message.
    static func reason(_ error: ScreensPipeError) -> String {
        let reason = [error.exceptionType, error.message].compactMap { $0 }.joined(separator: ": ")
        return "the portal refused it\(error.status.map { " (HTTP \($0))" } ?? ""): \(reason)"
    }
}
