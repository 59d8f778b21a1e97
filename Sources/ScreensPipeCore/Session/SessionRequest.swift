public import ScreensBus

/// One command of a list session, as a client sends it: what a list Screenlet's user does.
public enum SessionOperation: Sendable, Hashable {
    /// The first page: `autoLoad` or `loadList()`.
    case load
    /// The page after the last one asked for: the scroll of fluent pagination.
    case next
    /// Page `N` (0-based), wherever the client jumps.
    case page(Int)
    /// Pull to refresh: remote again, cache updated, the page indices start over at page 0.
    case refresh
    /// The user selected the row with this index in the whole list (`onSelected`).
    case select(row: Int)
    /// Adds, changes or deletes a row through the pipeline's `liferay` sink, and the list
    /// (its loaded pages, its count, its cache) with it: an `edited` event.
    case edit(SessionEdit)
    /// Follows the list: its changes on the portal, polled every interval, come as
    /// `changed` events (the lines of `run --follow`); a second follow replaces the interval.
    case follow(every: Duration)
    /// Stops following.
    case unfollow
    /// Ends the session: a `finished` event.
    case close
    /// A line that is no command (malformed JSON, an unknown op, a bad page or row, a line
    /// over ``SessionRequest/maximumLineLength``): answered with an `error` event that says
    /// why, and the session goes on.
    case unreadable(String)
}

/// A command and the client's `id` for it, echoed on every event the command causes.
public struct SessionRequest: Sendable, Hashable {
    /// The client's id: a string or a number, as sent; nil when the command had none.
    public var id: JSONValue?
    /// What the client asks for.
    public var operation: SessionOperation

    /// Creates a request for `operation`, tagged with `id`.
    public init(_ operation: SessionOperation, id: JSONValue? = nil) {
        self.operation = operation
        self.id = id
    }

    /// The longest command line read, in bytes (64 KiB): a longer line is answered with an
    /// error and skipped, so a client cannot make the session hold unbounded input.
    public static let maximumLineLength = 64 * 1024

    /// The longest `id`, in bytes of its JSON text: it is echoed on every event a command
    /// causes, so a longer one is refused.
    public static let maximumIDLength = 256

    /// Reads one JSON-lines command (`{"op":"page","page":3,"id":"p3"}`). A line that is not
    /// a command becomes ``SessionOperation/unreadable(_:)`` with the reason, keeping its `id`
    /// when one could be read.
    public init(line: some Collection<UInt8>) {
        guard line.count <= Self.maximumLineLength else {
            self = .overlong(bytes: line.count)
            return
        }
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONValue(parsing: Array(line))
        } catch {
            self.init(.unreadable("the command is not JSON: \(error)"))
            return
        }
        guard let object = value.objectValue else {
            self.init(.unreadable("a command is a JSON object such as {\"op\":\"load\"}, found \(value.typeName)"))
            return
        }
        var id: JSONValue?
        switch object["id"] {
        case nil, .null?: id = nil
        case let scalar? where scalar.isNumber || scalar.stringValue != nil:
            // Echoed on every event of the command: a long one would multiply the output.
            guard scalar.jsonString.utf8.count <= Self.maximumIDLength else {
                self.init(.unreadable("the id is longer than \(Self.maximumIDLength) bytes"))
                return
            }
            id = scalar
        case let other?:
            self.init(.unreadable("the id must be a string or a number, found \(other.typeName)"))
            return
        }
        do throws(SessionCommandError) {
            self.init(try Self.command(in: object), id: id)
        } catch {
            self.init(.unreadable(error.message), id: id)
        }
    }

    /// The answer to a command line of `bytes` bytes, over ``maximumLineLength``: a reader
    /// that skips such a line without keeping it reports it with this.
    public static func overlong(bytes: Int) -> SessionRequest {
        SessionRequest(.unreadable("the command line is \(bytes) bytes, longer than the limit of \(maximumLineLength); it was skipped"))
    }

    private static let operations = ["load", "next", "page", "refresh", "select", "add", "update", "delete", "follow", "unfollow", "close"]

    private static func command(in object: JSONObject) throws(SessionCommandError) -> SessionOperation {
        guard let opValue = object["op"] else {
            throw SessionCommandError(message: "the command has no \"op\"; one of \(operations.joined(separator: ", "))")
        }
        guard let op = opValue.stringValue else {
            throw SessionCommandError(message: "\"op\" must be a string, found \(opValue.typeName)")
        }
        let allowed: Set<String>
        let command: SessionOperation
        switch op {
        case "load": (command, allowed) = (.load, [])
        case "next": (command, allowed) = (.next, [])
        case "refresh": (command, allowed) = (.refresh, [])
        case "close": (command, allowed) = (.close, [])
        case "page": (command, allowed) = (.page(try index("page", in: object)), ["page"])
        case "select": (command, allowed) = (.select(row: try index("row", in: object)), ["row"])
        case "add": (command, allowed) = (.edit(.add(row: try editRow(in: object, op: op))), ["row"])
        case "update": (command, allowed) = (.edit(.update(row: try editRow(in: object, op: op))), ["row"])
        case "delete": (command, allowed) = (.edit(.delete(key: try editKey(in: object))), ["key"])
        case "follow": (command, allowed) = (.follow(every: try followInterval(in: object)), ["every"])
        case "unfollow": (command, allowed) = (.unfollow, [])
        default:
            throw SessionCommandError(message: "unknown op '\(clipped(op))'; one of \(operations.joined(separator: ", "))")
        }
        for key in object.keys where key != "op" && key != "id" && !allowed.contains(key) {
            throw SessionCommandError(message: "unknown key '\(clipped(key))' in a \(op) command")
        }
        return command
    }

    /// A non-negative integer argument (`page`, `row`).
    private static func index(_ key: String, in object: JSONObject) throws(SessionCommandError) -> Int {
        guard let value = object[key] else { throw SessionCommandError(message: "the command needs \"\(key)\", a number from 0") }
        guard let number = value.int64Value, number >= 0, number <= Int64(Int32.max) else {
            throw SessionCommandError(message: "\"\(key)\" must be an integer from 0 to \(Int32.max), found \(clipped(value.jsonString))")
        }
        return Int(number)
    }

    /// Client text quoted back in an error, cut short so an error line stays small.
    private static func clipped(_ text: String) -> String {
        text.count <= 64 ? text : String(text.prefix(64)) + "..."
    }
}
