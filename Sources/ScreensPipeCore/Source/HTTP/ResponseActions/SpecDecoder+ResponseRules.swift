/// `on-response: [ { status: 404, action: end-list }, { body-contains: "...", action: skip-page },
/// { json: { path: error.code, equals: X }, action: fail, message: "..." } ]`.
extension SpecDecoder {
    static let responseRuleKeys = ["status", "body-contains", "json", "action", "message"]
    static let responseRuleJSONKeys = ["path", "equals"]
    /// More rules than this is not a configuration anyone writes by hand.
    static let maximumResponseRules = 64

    func decodeResponseRules(_ node: YAMLNode) -> [ResponseRule] {
        guard case .sequence(let sequence) = node else {
            context.fail("'on-response' must be a list of rules such as { status: 404, action: end-list }", at: node.location)
            return []
        }
        if sequence.items.count > Self.maximumResponseRules {
            context.fail("'on-response' has \(sequence.items.count) rules, more than \(Self.maximumResponseRules)", at: node.location)
            return []
        }
        return sequence.items.enumerated().compactMap { index, item in
            guard let section = Section(item, name: "on-response[\(index)]", context: context) else { return nil }
            return decodeResponseRule(section)
        }
    }

    private func decodeResponseRule(_ section: Section) -> ResponseRule? {
        section.checkKeys(Self.responseRuleKeys)
        let action = section.required("action").flatMap { context.choice($0, key: "action", ResponseAction.self) }
        var rule = ResponseRule(action: action ?? .fail)
        if let node = section["status"] {
            let nodes: [YAMLNode] = if case .sequence(let list) = node { list.items } else { [node] }
            rule.statuses = nodes.compactMap { context.int($0, key: "status", atLeast: 100, atMost: 599) }
            if nodes.isEmpty { context.fail("'status' needs at least one status", at: node.location) }
        }
        if let node = section["body-contains"], let text = context.nonEmptyString(node, key: "body-contains") {
            if text.utf8.count > ResponseRule.maximumNeedleLength {
                context.fail("'body-contains' is longer than \(ResponseRule.maximumNeedleLength) bytes", at: node.location)
            }
            rule.bodyContains = text
        }
        if let json = section.section("json") {
            json.checkKeys(Self.responseRuleJSONKeys)
            let pathText = json.required("path").flatMap { context.nonEmptyString($0, key: "path") }
            let expected = json.required("equals").map { context.json($0, key: "equals") }
            if let pathText, let expected {
                do throws(ScreensPipeError) {
                    rule.json = ResponseRule.JSONCondition(path: try FieldPath(pathText), value: expected)
                } catch {
                    context.fail("'path' is not a field path: \(error.message)", at: json["path"]?.location ?? json.location)
                }
                if case .object = expected { context.fail("'equals' must be a scalar", at: json["equals"]?.location ?? json.location) }
                if case .array = expected { context.fail("'equals' must be a scalar", at: json["equals"]?.location ?? json.location) }
            }
        }
        rule.message = section.nonEmptyString("message")
        if rule.statuses == nil, rule.bodyContains == nil, rule.json == nil {
            context.fail("an on-response rule needs a condition: status, body-contains or json", at: section.location)
            return nil
        }
        guard action != nil else { return nil }
        return rule
    }
}
