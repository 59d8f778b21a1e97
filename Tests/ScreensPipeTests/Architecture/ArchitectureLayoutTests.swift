import Foundation
import Testing

/// docs/architecture.md's "Layout" table is the map of the package: every folder under
/// `Sources/` and under `Sources/ScreensPipeCore/` has a row, and every row a folder.
@Suite("architecture: the layout table matches the folders")
struct ArchitectureLayoutTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The backticked paths in the first column of the table's rows.
    static func documentedFolders() throws -> Set<String> {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        guard let layout = text.range(of: "\n## Layout\n") else { return [] }
        var folders: Set<String> = []
        for line in text[layout.upperBound...].split(separator: "\n") where line.hasPrefix("| `") {
            let cell = line.dropFirst(3).prefix { $0 != "`" }
            folders.insert(String(cell))
        }
        return folders
    }

    static func folders(under path: String) throws -> [String] {
        let url = packageRoot.appendingPathComponent(path)
        return try FileManager.default.contentsOfDirectory(atPath: url.path).filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path, isDirectory: &isDirectory)
                && isDirectory.boolValue && !name.hasPrefix(".")
        }.map { "\(path)/\($0)" }
    }

    @Test("every folder under Sources/ and Sources/ScreensPipeCore/ has a row, and every row a folder")
    func tableMatchesFolders() throws {
        let documented = try Self.documentedFolders()
        let onDisk = Set(try Self.folders(under: "Sources") + Self.folders(under: "Sources/ScreensPipeCore"))
        #expect(!documented.isEmpty, "docs/architecture.md has no Layout table")
        #expect(onDisk.subtracting(documented).sorted() == [], "folders with no row in docs/architecture.md's Layout table")
        #expect(documented.subtracting(onDisk).sorted() == [], "rows of docs/architecture.md's Layout table with no folder")
    }

    /// One DocC catalog per Swift target (issue 38): the guides of a product live with it, the
    /// command line's with the command. C targets (a module map, or C sources) have none.
    @Test("every Swift target has a DocC catalog of its own")
    func everySwiftTargetHasACatalog() throws {
        for folder in try Self.folders(under: "Sources") {
            let files = try FileManager.default.contentsOfDirectory(atPath: Self.packageRoot.appendingPathComponent(folder).path)
            if files.contains("module.modulemap") || files.contains(where: { $0.hasSuffix(".c") }) { continue }
            #expect(files.contains { $0.hasSuffix(".docc") }, "\(folder) has no .docc catalog")
        }
    }

    @Test("each product's row names a target that Package.swift declares")
    func productsExist() throws {
        let manifest = try String(contentsOf: Self.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        for folder in try Self.folders(under: "Sources") {
            let target = String(folder.dropFirst("Sources/".count))
            #expect(manifest.contains("name: \"\(target)\""), "Package.swift declares no target \(target)")
        }
    }
}
