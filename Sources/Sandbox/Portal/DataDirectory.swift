// A plain import: SwiftPM's generated resource accessor imports Foundation publicly.
import Foundation
import Synchronization

/// Finds the sample data and caches what was loaded, so tests that start many servers parse it once.
enum DataDirectory {
    /// The resource bundle SwiftPM copies beside the executable (and beside the test bundle).
    static let bundleName = "screens-pipe_Sandbox.resources"

    /// The directory to serve: `configured` when given, else the bundled data.
    ///
    /// `Bundle.module` would stop the process when the bundle is missing (a binary copied
    /// elsewhere), so the bundle is looked up by hand: beside the running executable, then
    /// in the source tree this file was built from, then a clear error.
    static func locate(configured: String?) throws -> String {
        if let configured {
            guard isDirectory(configured) else { throw SandboxError("sandbox data directory \(configured) does not exist") }
            return configured
        }
        var candidates: [String] = []
        for executable in [try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), CommandLine.arguments.first] {
            guard let executable else { continue }
            let directory = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
            candidates.append(directory.appendingPathComponent(bundleName).appendingPathComponent("Data").path)
        }
        let sourceData = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Data").path
        candidates.append(sourceData)
        if let found = candidates.first(where: { isDirectory($0) && FileManager.default.fileExists(atPath: $0 + "/sites.json") }) {
            return found
        }
        throw SandboxError(
            "cannot find the sandbox sample data (looked in \(candidates.joined(separator: ", "))); pass --data DIR")
    }

    static func readFile(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }

    private static let loaded = Mutex<[String: PortalData]>([:])

    /// The data of `directory`, parsed on first use.
    static func load(_ directory: String) throws -> PortalData {
        if let data = loaded.withLock({ $0[directory] }) { return data }
        let data = try PortalData(directory: directory)
        loaded.withLock { $0[directory] = data }
        return data
    }
}
