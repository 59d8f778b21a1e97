/// One step of a coding path: a member's key, or an array's index, kept as it is so that
/// no index is written as text and no key array is built unless a path is asked for.
enum CodingPathStep {
    case key(any CodingKey)
    case index(Int)

    /// The step as the standard library's coding key.
    var codingKey: any CodingKey {
        switch self {
        case .key(let key): key
        case .index(let index): JSONKey(index: index)
        }
    }
}

/// Where a container is, as a chain of steps up to the root, as swift-foundation's
/// `_CodingPathNode`: a nested object or array adds one node, shared by all its members,
/// and `codingPath` arrays are built only for an error or a type that reads its path.
final class CodingPathNode {
    let step: CodingPathStep
    let parent: CodingPathNode?

    init(_ step: CodingPathStep, parent: CodingPathNode?) {
        self.step = step
        self.parent = parent
    }

    /// The coding path of `node` (the root's is empty), followed by `last` if given.
    static func codingPath(_ node: CodingPathNode?, then last: CodingPathStep? = nil) -> [any CodingKey] {
        var steps: [any CodingKey] = []
        if let last { steps.append(last.codingKey) }
        var current = node
        while let step = current {
            steps.append(step.step.codingKey)
            current = step.parent
        }
        return steps.reversed()
    }
}
