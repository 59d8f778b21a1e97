/// Builds the source stage of a pipeline, wrapped in its cache policy.
enum SourceFactory {
    static func makeFetcher(spec: PipelineSpec, baseURL: String?, environment: PipelineEnvironment) throws(ScreensPipeError) -> any PageFetcher {
        let source: any PageFetcher
        switch spec.source.protocolSpec {
        case .file(let file):
            source = FileSource(spec: file)
        case .liferayJSONWS, .liferayHeadless, .rest:
            throw ScreensPipeError(.configuration, "source type \(spec.source.protocolSpec.typeName) is not available yet")
        }
        return source
    }
}
