import Foundation
@testable import ScreensPipeCore
import ScreensBus
import Testing

/// `service: image`: what the sink takes, and the rows it checks before any request.
@Suite struct ImageWriteSpecTests {
    private func sink(_ lines: String) -> String {
        """
        name: w
        sink:
          type: liferay
          server: http://127.0.0.1:1
          group-id: 20143
          service: image
        \(lines)
        """
    }

    private func errors(_ lines: String) -> String {
        do {
            _ = try loadPipeline(sink(lines))
            return ""
        } catch {
            return error.description
        }
    }

    @Test func theSinkTakesAFolderAndRefusesWhatUploadsDoNotUse() throws {
        let spec = try loadPipeline(sink("  folder-id: 20400"))
        #expect(spec.sink.liferay?.service == .image)
        #expect(spec.sink.liferay?.folderId == 20400)
        #expect(errors("  transport: headless") == "")
        #expect(errors("  transport: headless\n  liferay-version: \"7.1\"").contains("has no documents API"))
        #expect(errors("  key: [title]").contains("'key' is not for 'service: image'"))
        #expect(errors("  write-policy: cache-first") == "", "uploads wait in the outbox with a copy of their file")
        #expect(errors("  transport: headless\n  write-policy: cache-first").contains("a headless sink writes with 'remote-only'"))
        #expect(errors("  content-structure-id: 1").contains("'content-structure-id' is for 'service: web-content'"))
    }

    @Test func rowsNameAFileInsideTheFilesDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("image-rows-\(UUID().uuidString)")
        let inside = directory.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inside.appendingPathComponent("sub"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data([1, 2, 3]).write(to: inside.appendingPathComponent("sub/a.png"))
        try Data([1]).write(to: directory.appendingPathComponent("out.png"))
        let spec = try #require(try loadPipeline(sink("  folder-id: 20400")).sink.liferay)
        let validator = try ImageRowValidator(spec: spec, filesDirectory: inside.path)
        func row(_ json: String) -> Result<ImageRow, RowRejection> {
            Result { () throws(RowRejection) in try validator.row(try! JSONValue(parsing: Array(json.utf8)), line: 1) }
        }
        let good = try row(#"{"file":"sub/./a.png","mimeType":"image/png","description":"x"}"#).get()
        #expect(good.title == "a.png")
        #expect(good.sourceFileName == "a.png")
        #expect(good.size == 3)
        #expect(good.folderId == 20400)
        #expect(good.repositoryId == 20143)
        #expect(try row(#"{"file":"sub/a.png","mimeType":"image/png","folderId":0}"#).get().folderId == 0)
        func reason(_ json: String) -> String {
            if case .failure(let rejection) = row(json) { return rejection.message }
            return "accepted"
        }
        #expect(reason(#"{"file":"../out.png","mimeType":"image/png"}"#).contains("outside the files directory"))
        #expect(reason(#"{"file":"sub/../../out.png","mimeType":"image/png"}"#).contains("outside the files directory"))
        #expect(reason(#"{"file":"sub","mimeType":"image/png"}"#).contains("is a directory"))
        #expect(reason(#"{"file":"/etc/passwd","mimeType":"image/png"}"#).contains("must be relative"))
        #expect(reason(#"{"file":"sub/a.png","mimeType":"image/png","title":"a\u0007"}"#).contains("control character U+0007"))
        #expect(reason(#"{"file":"sub/a.png","mimeType":"image/png","title":"a:b"}"#).contains("FileNameException"))
        #expect(reason(#"{"file":"sub/a.png","mimeType":"image/png; charset=x"}"#).contains("must be a MIME type"))
        #expect(reason(#"{"file":"sub/a.png"}"#).contains("missing 'mimeType'"))
        #expect(reason(#"{"file":"sub/a.png","mimeType":"image/png","fileEntryId":4}"#).contains("names an entry to delete"))
        #expect(reason(#"{"op":"delete"}"#).contains("missing 'fileEntryId'"))
        #expect(reason(#"{"op":"move","fileEntryId":4}"#).contains("'op' is upload or delete"))
        #expect(try row(#"{"op":"delete","fileEntryId":4}"#).get().key != (try row(#"{"op":"delete","fileEntryId":5}"#).get().key))
    }

    @Test func filesAreFoundBesideTheRowsFile() {
        #expect(WriteInput.file("rows/images.jsonl").filesDirectory(source: .writeInput) == "rows")
        #expect(WriteInput.file("images.jsonl").filesDirectory(source: .writeInput) == ".")
        #expect(WriteInput.file("/images.jsonl").filesDirectory(source: .writeInput) == "/")
        #expect(WriteInput.standardInput.filesDirectory(source: .writeInput) == ".")
        let source = SourceSpec(type: .file(FileSourceSpec(path: "/srv/samples/images/images.jsonl")))
        #expect(WriteInput.pipelineSource.filesDirectory(source: source) == "/srv/samples/images")
    }
}
