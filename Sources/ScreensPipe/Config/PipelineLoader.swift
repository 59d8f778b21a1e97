public import class Foundation.ProcessInfo
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Loads pipeline files into a validated ``PipelineSpec``.
///
/// The file is parsed by libyaml into a located node tree, `${VAR}` references in scalar
/// values are expanded from `environment`, `--set key.path=value` overrides are applied, and
/// the tree is decoded. Every error of the file is reported at once, sorted by position.
public struct PipelineLoader: Sendable {
    /// The variables `${NAME}` references read.
    let environment: [String: String]

    /// A loader reading `${NAME}` from `environment` (the process environment by default).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// Loads the pipeline file at `path`; the default name is the file name without `.yaml`/`.yml`.
    ///
    /// `-` reads the pipeline from standard input (`<stdin>` in messages). Files larger than
    /// ``maximumFileSize`` are refused: `/dev/zero` or a log file given by mistake is an error,
    /// not an endless read.
    public func load(file path: String, overrides: [String] = []) throws(ConfigurationErrors) -> PipelineSpec {
        let fromStandardInput = path == "-"
        let label = fromStandardInput ? "<stdin>" : path
        let bytes: [UInt8]
        do {
            bytes = try Self.readFile(fromStandardInput ? "/dev/stdin" : path)
        } catch {
            throw .unreadable(label, reason: error.reason)
        }
        return try load(bytes: bytes, file: label, specFile: fromStandardInput ? nil : path, overrides: overrides)
    }

    /// The largest pipeline file read: 16 MiB.
    public static let maximumFileSize = 16 << 20

    /// Loads a pipeline from YAML text; `file` names it in messages (and, unless it is
    /// `<string>`, gives the default name).
    public func load(yaml text: String, file: String = "<string>", overrides: [String] = []) throws(ConfigurationErrors) -> PipelineSpec {
        try load(bytes: Array(text.utf8), file: file, specFile: file == "<string>" ? nil : file, overrides: overrides)
    }

    private func load(bytes: [UInt8], file: String, specFile: String?, overrides: [String]) throws(ConfigurationErrors) -> PipelineSpec {
        var root: YAMLNode
        do {
            root = try YAMLReader(file: file).read(bytes)
        } catch {
            throw ConfigurationErrors(errors: [error])
        }
        var errors: [ScreensPipeError] = []
        Interpolator(environment: environment, parentNames: FanOutNames.declared(in: root)).interpolate(&root, errors: &errors)
        var overrideLabels: [String] = []
        for argument in overrides {
            do {
                let override = try Override(parsing: argument)
                overrideLabels.append(override.location.file)
                try override.apply(to: &root)
            } catch {
                overrideLabels.append(error.location?.file ?? argument)
                errors.append(error)
            }
        }
        let context = DecodingContext()
        for error in errors { context.append(error) }
        let decoder = SpecDecoder(context: context, defaultName: Self.defaultName(file: specFile), file: specFile)
        let spec = decoder.decode(root)
        guard let spec, context.errors.isEmpty else {
            let failedValues = Set(errors.compactMap(\.location))
            throw ConfigurationErrors(sorting: context.errors, file: file, overrides: overrideLabels, exclusive: failedValues)
        }
        return spec
    }

    /// The file name without its directory and `.yaml`/`.yml`; "pipeline" for text.
    static func defaultName(file: String?) -> String {
        guard let file else { return "pipeline" }
        var name = Substring(file.split(separator: "/").last ?? Substring(file))
        for suffix in [".yaml", ".yml"] where name.hasSuffix(suffix) && name.count > suffix.count {
            name = name.dropLast(suffix.count)
        }
        return name.isEmpty ? "pipeline" : String(name)
    }

    struct ReadFailure: Error {
        var reason: String
    }

    /// The whole file, with the system's reason when it cannot be read or is larger than
    /// `limit` bytes (`what` names the kind of file in that message).
    static func readFile(_ path: String, limit: Int = maximumFileSize, what: String = "pipeline file") throws(ReadFailure) -> [UInt8] {
        guard let handle = fopen(path, "rb") else { throw ReadFailure(reason: String(cString: strerror(errno))) }
        defer { fclose(handle) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, handle) }
            bytes.append(contentsOf: chunk[..<count])
            if bytes.count > limit {
                throw ReadFailure(reason: "it is larger than \(limit >> 20) MiB, which no \(what) is")
            }
            if count < chunk.count {
                if ferror(handle) != 0 { throw ReadFailure(reason: String(cString: strerror(errno))) }
                return bytes
            }
        }
    }
}
