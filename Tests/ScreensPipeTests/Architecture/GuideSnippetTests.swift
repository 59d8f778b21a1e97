import Foundation
import Testing

/// The guides' Swift code lives in Snippets/, which `swift build` (and so `make test`)
/// compiles: a guide shows it with `@Snippet(path:slice:)`, the README repeats a slice
/// verbatim. What these tests check is that no guide holds Swift code of its own that no
/// build sees, and that every reference finds its snippet.
@Suite("Guide snippets")
struct GuideSnippetTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let guides = ["GettingStarted", "Embedding", "Observability", "FollowingAList"].map { "Sources/ScreensPipeCore/ScreensPipe.docc/\($0).md" }

    static func text(_ relative: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
    }

    /// The ```swift blocks of a Markdown text.
    static func swiftBlocks(_ markdown: String) -> [String] {
        markdown.matches(of: /```swift\n((?:.|\n)*?)```/).map { String($0.1) }
    }

    /// The lines of `slice` in a snippet file, as DocC shows them: between `// snippet.NAME`
    /// and `// snippet.end`, without hidden lines.
    static func slice(_ name: String, of file: String) throws -> String? {
        var shown: [Substring] = []
        var inside = false
        var hidden = false
        for line in try text("Snippets/\(file).swift").split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "// snippet.\(name)" { inside = true; continue }
            guard inside else { continue }
            if trimmed == "// snippet.end" { return shown.joined(separator: "\n") + "\n" }
            if trimmed == "// snippet.hide" { hidden = true; continue }
            if trimmed == "// snippet.show" { hidden = false; continue }
            if !hidden { shown.append(line) }
        }
        return nil
    }

    @Test("the guides hold no Swift code but Package.swift lines: the rest is @Snippet")
    func guidesUseSnippets() throws {
        for guide in Self.guides {
            for block in Self.swiftBlocks(try Self.text(guide)) {
                let manifest = block.split(separator: "\n").allSatisfy { line in
                    let code = line.trimmingCharacters(in: .whitespaces)
                    let manifestLine = [".package(", ".product(", ".executableTarget(", "dependencies:", "]", "//"].contains { code.hasPrefix($0) }
                    return code.isEmpty || code == "..." || manifestLine
                }
                #expect(manifest, "\(guide) holds Swift code that no build compiles:\n\(block)")
            }
        }
    }

    @Test("every @Snippet names a file of Snippets/ and a slice it has")
    func snippetReferencesResolve() throws {
        var count = 0
        for guide in Self.guides {
            for reference in try Self.text(guide).matches(of: /@Snippet\(path: "screens-pipe\/Snippets\/([A-Za-z]+)"(?:, slice: "([a-z-]+)")?\)/) {
                count += 1
                let file = String(reference.1)
                if let slice = reference.2 {
                    #expect(try Self.slice(String(slice), of: file) != nil, "\(guide): no slice \(slice) in Snippets/\(file).swift")
                } else {
                    #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("Snippets/\(file).swift").path), "\(guide): no Snippets/\(file).swift")
                }
            }
        }
        #expect(count >= 8)
    }

    @Test("the README's Swift code is a snippet's slice, word for word")
    func readmeRepeatsASnippet() throws {
        let blocks = Self.swiftBlocks(try Self.text("README.md"))
        #expect(!blocks.isEmpty)
        for block in blocks {
            // The README indents a block inside a list item.
            let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
            let indent = lines.first.map { $0.prefix { $0 == " " }.count } ?? 0
            let code = lines.map { $0.dropFirst(min(indent, $0.prefix { $0 == " " }.count)) }.joined(separator: "\n")
            let sliced = try Self.slice("readme", of: "SharedCacheReplica")
            #expect(code.trimmingCharacters(in: .whitespacesAndNewlines) == sliced?.trimmingCharacters(in: .whitespacesAndNewlines), "README:\n\(code)")
        }
    }

    @Test("the path dependency names the package, and the URL one takes the version the CLI prints")
    func manifests() throws {
        let guide = try Self.text("Sources/ScreensPipeCore/ScreensPipe.docc/Embedding.md")
        #expect(guide.contains(#".package(name: "screens-pipe", path: "../screens-pipe")"#))
        let version = try #require(try Self.text("Sources/ScreensPipeCore/ScreensPipeVersion.swift").firstMatch(of: /current = "([0-9.]+)"/)).1
        #expect(guide.contains(#"from: "\#(version)")"#))
        #expect(try Self.text("CHANGELOG.md").contains("## \(version)"))
    }
}
