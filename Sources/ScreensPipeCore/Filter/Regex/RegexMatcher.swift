/// Runs a ``RegexProgram`` over a text with a Pike VM: every thread advances one character at
/// a time, and a program position is held by at most one thread per step, so the work is at
/// most (instructions x characters) whatever the pattern. `(a+)+$` on 10,000 `a`s followed by
/// `!` takes as long as any other pattern of its size, where a backtracking engine never ends.
struct RegexMatcher: Sendable {
    let program: RegexProgram

    /// About a millisecond of work in a debug build.
    static let stepsBetweenCancellationChecks = 1 << 14

    /// Whether the pattern matches anywhere in `text`.
    func matches(_ text: String) -> Bool {
        let characters = Array(text)
        let lowered = program.ignoresCase ? characters.map { $0.lowercased() } : []
        let instructions = program.instructions
        var current = ThreadList(capacity: instructions.count)
        var next = ThreadList(capacity: instructions.count)
        var stack: [Int] = []
        if add(0, at: 0, to: &current, characters: characters, stack: &stack) { return true }
        var position = 0
        // Linear is not instant (20,000 instructions over a 64 MiB field): a cancelled run (a
        // signal) stops here too, the row's answer no longer matters then. Counted in thread
        // steps, not characters, so a large program is checked as often as a small one.
        var stepsSinceCheck = 0
        while position < characters.count {
            stepsSinceCheck += current.count
            if stepsSinceCheck >= Self.stepsBetweenCancellationChecks {
                stepsSinceCheck = 0
                if Task.isCancelled { return false }
            }
            let character = characters[position]
            for index in 0..<current.count {
                let pc = current.dense[index]
                let advances: Bool
                switch instructions[pc] {
                case .character(let expected): advances = character == expected
                case .characterIgnoringCase(let expected): advances = lowered[position] == expected
                case .any(let matchingNewline): advances = matchingNewline || !character.isNewline
                case .set(let set, let ignoringCase): advances = set.contains(character, caseInsensitive: ignoringCase)
                case .split, .jump, .assertion, .match: advances = false
                }
                if advances, add(pc + 1, at: position + 1, to: &next, characters: characters, stack: &stack) { return true }
            }
            position += 1
            // A match may start at any position: a fresh thread joins at every step.
            if add(0, at: position, to: &next, characters: characters, stack: &stack) { return true }
            swap(&current, &next)
            next.removeAll()
        }
        return false
    }

    /// Adds the thread at `pc` and everything it reaches without consuming a character
    /// (splits, jumps, assertions that hold at `position`) to `list`, with an explicit stack.
    /// Returns true when one of them is `match`.
    private func add(
        _ pc: Int, at position: Int, to list: inout ThreadList, characters: [Character], stack: inout [Int]
    ) -> Bool {
        let instructions = program.instructions
        stack.removeAll(keepingCapacity: true)
        stack.append(pc)
        while let pc = stack.popLast() {
            guard list.insert(pc) else { continue }
            switch instructions[pc] {
            case .match:
                return true
            case .jump(let target):
                stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .assertion(let assertion):
                if Self.holds(assertion, at: position, in: characters) { stack.append(pc + 1) }
            case .character, .characterIgnoringCase, .any, .set:
                break
            }
        }
        return false
    }

    private static func holds(_ assertion: RegexAssertion, at position: Int, in characters: [Character]) -> Bool {
        switch assertion {
        case .textStart: return position == 0
        case .textEnd: return position == characters.count
        case .lineStart: return position == 0 || characters[position - 1].isNewline
        case .lineEnd: return position == characters.count || characters[position].isNewline
        case .wordBoundary, .notWordBoundary:
            let before = position > 0 && RegexClasses.isWord(characters[position - 1])
            let after = position < characters.count && RegexClasses.isWord(characters[position])
            return (before != after) == (assertion == .wordBoundary)
        }
    }
}

/// A set of program positions with O(1) insert, membership and clear (Briggs and Torczon's
/// sparse set), kept in insertion order.
private struct ThreadList {
    var dense: [Int]
    var sparse: [Int]
    var count = 0

    init(capacity: Int) {
        dense = Array(repeating: 0, count: capacity)
        sparse = Array(repeating: 0, count: capacity)
    }

    /// Inserts `pc`; false when it was already there.
    mutating func insert(_ pc: Int) -> Bool {
        let slot = sparse[pc]
        if slot < count, dense[slot] == pc { return false }
        sparse[pc] = count
        dense[count] = pc
        count += 1
        return true
    }

    mutating func removeAll() { count = 0 }
}
