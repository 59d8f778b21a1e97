/// Expands environment references in scalar values, after parsing (so a `${...}` in a
/// comment never matters):
///
/// - `${NAME}`: the variable; unset is an error.
/// - `${NAME:-default}` / `${NAME-default}`: the default when unset or empty / when unset.
/// - `${NAME:?message}` / `${NAME?message}`: an error with the message when unset or empty / when unset.
/// - `$$`: a literal `$`. A `$` followed by anything else is kept as written.
///
/// Defaults may hold references themselves (`${A:-${B}}`), at most ``maximumNesting`` deep;
/// values substituted in are never expanded again.
struct Interpolator: Sendable {
    var environment: [String: String]
    /// The `as` names of the file's `for-each` sections: `${site.id}` is a parent-row
    /// placeholder, kept as written for the fan-out to resolve per row.
    var parentNames: Set<String> = []

    /// How deep defaults may nest references (`${A:-${B:-${C}}}` is 3). Expansion recurses
    /// per level, and a file is untrusted input: 40,000 levels once overflowed the stack.
    static let maximumNesting = 32

    /// Rewrites every scalar value in `node` (mapping keys are left alone), collecting errors.
    /// A scalar that names an unset variable stays as written, and is also listed in `unset`.
    func interpolate(_ node: inout YAMLNode, errors: inout [ScreensPipeError], unset: inout [UnsetVariable]) {
        switch node {
        case .scalar(var scalar):
            guard scalar.text.utf8.contains(UInt8(ascii: "$")) else { return }
            do {
                scalar.text = try expand(scalar.text)
                node = .scalar(scalar)
            } catch {
                let failure = ScreensPipeError.configuration(error.message, at: scalar.location)
                errors.append(failure)
                if let name = error.unsetVariable { unset.append(UnsetVariable(name: name, error: failure)) }
            }
        case .mapping(var mapping):
            for index in mapping.pairs.indices { interpolate(&mapping.pairs[index].value, errors: &errors, unset: &unset) }
            node = .mapping(mapping)
        case .sequence(var sequence):
            for index in sequence.items.indices { interpolate(&sequence.items[index], errors: &errors, unset: &unset) }
            node = .sequence(sequence)
        }
    }

    /// Why one scalar could not be expanded.
    struct Failure: Error {
        var message: String
        /// The variable whose absence is the reason (`${NAME}` or `${NAME:?message}` unset),
        /// as opposed to a malformed reference.
        var unsetVariable: String? = nil
    }

    /// `text` with every reference expanded.
    func expand(_ text: String) throws(Failure) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        try expand(bytes[...], into: &output, depth: 1)
        return String(decoding: output, as: UTF8.self)
    }

    private func expand(_ bytes: ArraySlice<UInt8>, into output: inout [UInt8], depth: Int) throws(Failure) {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            let next = index + 1 < bytes.endIndex ? bytes[index + 1] : nil
            guard byte == UInt8(ascii: "$"), let next, next == UInt8(ascii: "$") || next == UInt8(ascii: "{") else {
                output.append(byte)
                index += 1
                continue
            }
            if next == UInt8(ascii: "$") {
                output.append(byte)
                index += 2
                continue
            }
            guard let close = Self.closingBrace(in: bytes, openingAt: index + 1) else {
                throw Failure(message: "unterminated '${' in '\(String(decoding: bytes, as: UTF8.self))'")
            }
            guard depth <= Self.maximumNesting else {
                throw Failure(message: "references nested more than \(Self.maximumNesting) levels deep in defaults")
            }
            try substitute(bytes[(index + 2)..<close], into: &output, depth: depth)
            index = close + 1
        }
    }

    /// The index of the `}` that closes the `{` at `open`, counting nested `${`.
    private static func closingBrace(in bytes: ArraySlice<UInt8>, openingAt open: Int) -> Int? {
        var depth = 0
        var index = open
        while index < bytes.endIndex {
            switch bytes[index] {
            case UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "}"):
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
            index += 1
        }
        return nil
    }

    /// Expands the inside of one `${...}`.
    private func substitute(_ reference: ArraySlice<UInt8>, into output: inout [UInt8], depth: Int) throws(Failure) {
        var nameEnd = reference.startIndex
        while nameEnd < reference.endIndex, Self.isNameByte(reference[nameEnd], first: nameEnd == reference.startIndex) {
            nameEnd += 1
        }
        let name = String(decoding: reference[..<nameEnd], as: UTF8.self)
        let whole = "${\(String(decoding: reference, as: UTF8.self))}"
        guard !name.isEmpty else {
            throw Failure(message: "invalid reference '\(whole)': expected ${NAME}, ${NAME:-default} or ${NAME:?message}")
        }
        var rest = reference[nameEnd...]
        if rest.first == UInt8(ascii: ".") {
            guard parentNames.contains(name) else {
                throw Failure(
                    message: "'\(whole)' names no parent row: declare 'for-each: { as: \(name), list: ... }' on this source (environment variable names have no '.')")
            }
            output.append(contentsOf: whole.utf8)
            return
        }
        let value = environment[name]
        if rest.isEmpty {
            guard let value else { throw Failure(message: "environment variable '\(name)' is not set", unsetVariable: name) }
            output.append(contentsOf: value.utf8)
            return
        }
        // `:-` and `:?` treat an empty value as unset, `-` and `?` only an unset one.
        var emptyIsUnset = false
        if rest.first == UInt8(ascii: ":") {
            emptyIsUnset = true
            rest = rest.dropFirst()
        }
        let isUnset = value == nil || (emptyIsUnset && value?.isEmpty == true)
        switch rest.first {
        case UInt8(ascii: "-"):
            if isUnset {
                try expand(rest.dropFirst(), into: &output, depth: depth + 1)
            } else if let value {
                output.append(contentsOf: value.utf8)
            }
        case UInt8(ascii: "?"):
            if isUnset {
                // The message is shown as written: expanding `${SECRET}` in it would print the secret.
                let message = Array(rest.dropFirst())
                let reason = message.isEmpty ? (emptyIsUnset ? "unset or empty" : "unset") : String(decoding: message, as: UTF8.self)
                throw Failure(message: "\(name): \(reason)", unsetVariable: name)
            } else if let value {
                output.append(contentsOf: value.utf8)
            }
        default:
            throw Failure(message: "invalid reference '\(whole)': expected ${NAME}, ${NAME:-default} or ${NAME:?message}")
        }
    }

    private static func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "_"): true
        case UInt8(ascii: "0")...UInt8(ascii: "9"): !first
        default: false
        }
    }
}

/// A `${NAME}` (or `${NAME:?message}`) whose variable is not set, and the error it is at its scalar.
public struct UnsetVariable: Sendable, Hashable {
    /// The variable's name.
    public var name: String
    /// `environment variable 'NAME' is not set` (or the reference's own message) at the scalar.
    public var error: ScreensPipeError
}
