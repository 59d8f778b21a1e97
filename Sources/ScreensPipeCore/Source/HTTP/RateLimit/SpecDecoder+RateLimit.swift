/// `rate-limit: { requests: N, per: 1s, burst: M, max-wait: 60s }`.
extension SpecDecoder {
    static let rateLimitKeys = ["requests", "per", "burst", "max-wait"]

    func decodeRateLimit(_ section: Section) -> RateLimitSpec? {
        section.checkKeys(Self.rateLimitKeys)
        guard let requests = section.required("requests").flatMap({ context.int($0, key: "requests", atLeast: 1, atMost: 1_000_000) })
        else { return nil }
        var spec = RateLimitSpec(requests: requests)
        if let value = section.duration("per", atMost: ConfigLimits.maximumTimeout) { spec.per = value }
        if let value = section.int("burst", atLeast: 1, atMost: 10_000) { spec.burst = value }
        if let value = section.duration("max-wait", atMost: ConfigLimits.maximumTimeout) { spec.maxWait = value }
        return spec
    }
}
