/// A pattern compiled to instructions for ``RegexMatcher``: Thompson's construction, where
/// alternation and repetition become `split` and `jump`, so a match is a walk the VM can run
/// for every thread at once.
struct RegexProgram: Sendable {
    enum Instruction: Sendable {
        /// Consumes a character equal to this one.
        case character(Character)
        /// Consumes a character equal to this one once both are lowercased.
        case characterIgnoringCase(String)
        /// Consumes any character; a line break only when `matchingNewline`.
        case any(matchingNewline: Bool)
        /// Consumes a character in the set.
        case set(RegexCharacterSet, ignoringCase: Bool)
        /// Goes on at both targets.
        case split(Int, Int)
        case jump(Int)
        /// Goes on only where the assertion holds.
        case assertion(RegexAssertion)
        case match
    }

    /// The most instructions a pattern may compile to: the matcher's time is proportional to
    /// instructions times characters, so this bounds the cost per character.
    static let maximumSize = 20_000

    private(set) var instructions: [Instruction] = []
    /// Whether any instruction compares characters ignoring case (the text is lowercased once).
    private(set) var ignoresCase = false

    init(_ node: RegexNode) throws(RegexSyntaxError) {
        try emit(node)
        try append(.match)
    }

    private mutating func append(_ instruction: Instruction) throws(RegexSyntaxError) {
        guard instructions.count < Self.maximumSize else {
            throw RegexSyntaxError(
                position: 0,
                message: "the pattern expands to more than \(Self.maximumSize) instructions; use smaller {n,m} counts")
        }
        instructions.append(instruction)
    }

    private mutating func emit(_ node: RegexNode) throws(RegexSyntaxError) {
        switch node {
        case .empty:
            break
        case .character(let character, let ignoringCase):
            if ignoringCase, character.lowercased() != character.uppercased() {
                ignoresCase = true
                try append(.characterIgnoringCase(character.lowercased()))
            } else {
                try append(.character(character))
            }
        case .any(let matchingNewline):
            try append(.any(matchingNewline: matchingNewline))
        case .set(let set, let ignoringCase):
            try append(.set(set, ignoringCase: ignoringCase))
        case .concatenation(let items):
            for item in items { try emit(item) }
        case .alternation(let branches):
            // split L1, next; L1: branch; jump end; next: split L2, ... ; last branch.
            var jumps: [Int] = []
            for (index, branch) in branches.enumerated() {
                if index < branches.count - 1 {
                    let split = instructions.count
                    try append(.split(split + 1, -1))
                    try emit(branch)
                    jumps.append(instructions.count)
                    try append(.jump(-1))
                    instructions[split] = .split(split + 1, instructions.count)
                } else {
                    try emit(branch)
                }
            }
            for jump in jumps { instructions[jump] = .jump(instructions.count) }
        case .repetition(let body, let minimum, let maximum):
            for _ in 0..<minimum { try emit(body) }
            if let maximum {
                // Each optional copy may be skipped to the end.
                var skips: [Int] = []
                for _ in minimum..<maximum {
                    skips.append(instructions.count)
                    try append(.split(instructions.count + 1, -1))
                    try emit(body)
                }
                for skip in skips { instructions[skip] = .split(skip + 1, instructions.count) }
            } else {
                // loop: split body, end; body; jump loop.
                let loop = instructions.count
                try append(.split(loop + 1, -1))
                try emit(body)
                try append(.jump(loop))
                instructions[loop] = .split(loop + 1, instructions.count)
            }
        case .assertion(let assertion):
            try append(.assertion(assertion))
        }
    }
}
