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
    public func load(file path: String, overrides: [String] = []) throws(ScreensPipeError) -> PipelineSpec {
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
    public func load(yaml text: String, file: String = "<string>", overrides: [String] = []) throws(ScreensPipeError) -> PipelineSpec {
        try load(bytes: Array(text.utf8), file: file, specFile: file == "<string>" ? nil : file, overrides: overrides)
    }

    private func load(bytes: [UInt8], file: String, specFile: String?, overrides: [String]) throws(ScreensPipeError) -> PipelineSpec {
        let decoded = try decode(bytes: bytes, file: file, specFile: specFile, overrides: overrides)
        guard let spec = decoded.spec, decoded.errors.isEmpty else { throw ScreensPipeError(errors: decoded.errors) }
        return spec
    }

    /// A decoded file: the spec when the decoder could build one, every error in file order
    /// (unset variables included), and which of them are unset variables.
    struct Decoded {
        var spec: PipelineSpec?
        var errors: [ScreensPipeError]
        var unset: [UnsetVariable]
    }

    /// Decodes the file, collecting its errors; throws only when the YAML cannot be read.
    func decode(bytes: [UInt8], file: String, specFile: String?, overrides: [String]) throws(ScreensPipeError) -> Decoded {
        var root = try YAMLReader(file: file).read(bytes)
        var errors: [ScreensPipeError] = []
        var unset: [UnsetVariable] = []
        Interpolator(environment: environment, parentNames: FanOutNames.declared(in: root)).interpolate(&root, errors: &errors, unset: &unset)
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
        var decoder = SpecDecoder(context: context, defaultName: Self.defaultName(file: specFile), file: specFile)
        decoder.unknownValues = Set(unset.compactMap(\.error.location))
        let spec = decoder.decode(root)
        if context.errors.isEmpty { return Decoded(spec: spec, errors: [], unset: []) }
        let failedValues = Set(errors.compactMap(\.location))
        let sorted = ScreensPipeError(sorting: context.errors, file: file, overrides: overrideLabels, exclusive: failedValues)
        return Decoded(spec: spec, errors: sorted.errors, unset: unset)
    }

    /// Checks the pipeline file at `path` as `validate` does, reporting unset variables
    /// apart from the other problems: a value that names one is not checked (it is not
    /// known), and everything else is, so a CI job without the secrets still checks the
    /// file's structure, its model, fields and filter.
    public func check(file path: String, overrides: [String] = []) -> PipelineCheck {
        let fromStandardInput = path == "-"
        let label = fromStandardInput ? "<stdin>" : path
        let bytes: [UInt8]
        do {
            bytes = try Self.readFile(fromStandardInput ? "/dev/stdin" : path)
        } catch {
            let errors = ScreensPipeError.unreadable(label, reason: error.reason).errors
            return PipelineCheck(spec: nil, errors: errors, unsetVariables: [], allErrors: errors)
        }
        return check(bytes: bytes, file: label, specFile: fromStandardInput ? nil : path, overrides: overrides)
    }

    /// Checks pipeline YAML text as `validate` does (see ``check(file:overrides:)``).
    public func check(yaml text: String, file: String = "<string>", overrides: [String] = []) -> PipelineCheck {
        check(bytes: Array(text.utf8), file: file, specFile: file == "<string>" ? nil : file, overrides: overrides)
    }

    private func check(bytes: [UInt8], file: String, specFile: String?, overrides: [String]) -> PipelineCheck {
        let decoded: Decoded
        do throws(ScreensPipeError) {
            decoded = try decode(bytes: bytes, file: file, specFile: specFile, overrides: overrides)
        } catch {
            return PipelineCheck(spec: nil, errors: error.errors, unsetVariables: [], allErrors: error.errors)
        }
        // At an unset variable's scalar only its own error is kept (ScreensPipeError(sorting:)).
        let unsetAt = Set(decoded.unset.compactMap(\.error.location))
        var errors = decoded.errors.filter { error in error.location.map { !unsetAt.contains($0) } ?? true }
        guard errors.isEmpty, let spec = decoded.spec else {
            return PipelineCheck(spec: nil, errors: errors, unsetVariables: decoded.unset, allErrors: decoded.errors)
        }
        do throws(ScreensPipeError) {
            try PipelineValidation.check(spec)
        } catch {
            errors = error.errors
        }
        return PipelineCheck(
            spec: errors.isEmpty ? spec : nil, errors: errors, unsetVariables: decoded.unset, allErrors: decoded.errors + errors)
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

/// What checking a pipeline file found (``PipelineLoader/check(file:overrides:)``).
public struct PipelineCheck: Sendable {
    /// The spec, when the file has no error; when ``unsetVariables`` is not empty, the values
    /// that name them are as written (`${NAME}`), so it is for looking at, not for running.
    public var spec: PipelineSpec?
    /// Every problem but unset variables: the file's in file order, then the model's,
    /// fields' and filter's (checked once the file itself has none).
    public var errors: [ScreensPipeError]
    /// The `${NAME}`s whose variable is not set, in file order, each with its error.
    public var unsetVariables: [UnsetVariable]

    /// Everything a run refuses, unset variables included: the file's problems in file
    /// order, then the model's, fields' and filter's.
    public var allErrors: [ScreensPipeError]
}
