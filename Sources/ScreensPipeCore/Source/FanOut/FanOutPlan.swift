/// The fan-out tree as `plan` prints it: the child list first, each parent list indented
/// under it, placeholders as written.
enum FanOutPlan {
    static func tree(of source: SourceSpec) -> [String] {
        var lines: [String] = []
        var current: SourceSpec? = source
        var depth = 0
        var heading = "list"
        while let list = current {
            let indent = String(repeating: "    ", count: depth)
            lines.append("\(indent)\(heading): \(describe(list))")
            if let recursion = list.recursive {
                lines.append("\(indent)  tree: each row's \(recursion.key) as \(recursion.param), depth first, at most \(recursion.maxDepth) levels, a repeated \(recursion.key) is an error")
            }
            if !list.include.isEmpty {
                lines.append("\(indent)  include: \(list.include.map(\.description).joined(separator: ", ")) (as _parent)")
            }
            if let forEach = list.forEach {
                var budget = ""
                if depth == 0 {
                    budget = ", \(forEach.concurrency ?? list.pagination.prefetch) lists and requests in flight"
                }
                lines.append("\(indent)  for each \(forEach.name) (at most \(forEach.maxParents) rows\(budget)) of:")
                heading = forEach.name
            }
            current = list.forEach?.list
            depth += 1
        }
        return lines
    }

    /// Settings that cannot work with a fan-out: `cache.key` names one list, and a fan-out
    /// has one list per parent row (each keyed by its own settings, parent values included),
    /// so every list would share the first one's cached pages.
    ///
    /// `incremental:` keeps one cursor per list identity; a fan-out's child lists are made at
    /// run time, so their cursors would have no stable list to belong to yet.
    static func conflicts(_ spec: PipelineSpec) -> [ScreensPipeError] {
        guard spec.source.fansOut else { return [] }
        var errors: [ScreensPipeError] = []
        if spec.cache?.key != nil {
            errors.append(ScreensPipeError.configuration(
                "cache.key names one list, but a source with for-each or recursive loads one list per parent row: remove cache.key (each list's key is built from its own settings, parent values included)"))
        }
        if spec.incremental != nil {
            errors.append(ScreensPipeError.configuration(
                "incremental: keeps one cursor for one list, but a source with for-each or recursive loads one list per parent row: run each child list as a pipeline of its own to load it incrementally"))
        }
        return errors
    }

    /// The type and what names the list (path, URL or service), placeholders as written.
    private static func describe(_ source: SourceSpec) -> String {
        guard let template = source.rowTemplate else {
            // A list without placeholders: its settings as `plan` prints them, redacted.
            var parts = [source.type.typeName]
            for (key, value) in source.type.settings.redactedMembers where ["path", "url", "rows"].contains(key) {
                switch value {
                case .string(let text), .raw(let text): parts.append(text)
                case .mapping(let members):
                    for case ("service", .string(let service)) in members { parts.append(service) }
                case .sequence: break
                }
            }
            return parts.joined(separator: " ")
        }
        var parts = [source.type.typeName]
        for key in ["path", "url", "rows"] {
            guard let node = template[key] else { continue }
            switch node {
            case .scalar(let scalar): parts.append(redactedURL(scalar.text, markingUserinfo: true))
            case .mapping(let mapping):
                if case .scalar(let service)? = mapping["service"] { parts.append(service.text) }
                if case .mapping(let params)? = mapping["params"] {
                    let text = params.pairs.map { pair -> String in
                        // Only placeholders are shown: a literal value may be a secret (the
                        // requests below show the rest, redacted).
                        if case .scalar(let value) = pair.value, value.text.contains("${") { return "\(pair.key.text)=\(value.text)" }
                        return pair.key.text
                    }
                    parts.append("(" + text.joined(separator: ", ") + ")")
                }
            case .sequence: break
            }
        }
        return parts.joined(separator: " ")
    }
}
