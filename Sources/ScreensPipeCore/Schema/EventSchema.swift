import ScreensBus

/// The JSON Schema (draft-07) of one event line of `run --events` (or `sink.format: events`):
/// one object per line, `event` naming which. `screens-pipe schema --events` prints it;
/// `docs/schemas/events.schema.json` is that output, and a test checks real event lines
/// against it.
public enum EventSchema {
    /// The schema as pretty-printed JSON text, ending with a newline.
    public static var text: String { JSONPrettyText.text(document) + "\n" }

    /// The schema document.
    public static var document: JSONValue {
        var kinds: [JSONValue] = []
        var branches: [JSONValue] = []
        for (name, fields) in events {
            kinds.append(.string(name))
            var properties: JSONObject = ["event": ["const": .string(name)], "pipeline": ["type": "string"]]
            var required: [JSONValue] = ["event", "pipeline"]
            for field in fields {
                properties[field.name] = field.schema
                if field.required { required.append(.string(field.name)) }
            }
            branches.append([
                "if": ["properties": ["event": ["const": .string(name)]], "required": ["event"]],
                "then": ["properties": .object(properties), "required": .array(required), "additionalProperties": false],
            ])
        }
        return [
            "$schema": "http://json-schema.org/draft-07/schema#",
            "title": "screens-pipe event line",
            "description": "One line of run --events. Optional fields that are unknown are left out, never null. See EventsAndJSONLines.md.",
            "type": "object",
            "required": ["event", "pipeline"],
            "properties": ["event": ["enum": .array(kinds)]],
            "allOf": .array(branches),
        ]
    }

    private struct Field {
        var name: String
        var schema: JSONValue
        var required: Bool
    }

    private static func field(_ name: String, _ schema: JSONValue, required: Bool = true) -> Field {
        Field(name: name, schema: schema, required: required)
    }

    private static let count: JSONValue = ["type": "integer", "minimum": 0]
    private static let string: JSONValue = ["type": "string"]
    /// A child list's parents (fan-out): each `as` name's row index and shown fields, and
    /// `tree`, the keys above a list of a tree.
    private static let parent: JSONValue = ["type": "object"]

    /// Each event kind and its fields, as the JSON-lines envelope writes them.
    private static let events: [(String, [Field])] = [
        ("started", [
            field("source", string), field("cursor", string, required: false),
            field("cursorPushed", ["type": "boolean"], required: false),
            field("resumedFromPage", count, required: false),
        ]),
        ("response", [
            field("page", count), field("startRow", count), field("endRow", count),
            field("rowCount", count, required: false), field("rows", count),
            field("origin", ["enum": .array(["remote", "cache", "file"].map { .string($0) })]),
            field("fetchedAt", ["type": "string", "format": "date-time"], required: false),
            field("action", ["enum": ["skip-page", "end-list"]], required: false),
            field("actionReason", string, required: false),
            field("paginator", string, required: false),
            field("parent", parent, required: false),
        ]),
        ("selected", [field("page", count), field("row", count), field("item", [:]), field("parent", parent, required: false)]),
        ("error", [
            field("page", count, required: false), field("row", count, required: false), field("kind", string),
            field("status", ["type": "integer"], required: false), field("exceptionType", string, required: false),
            field("request", string, required: false), field("message", string),
            field("parent", parent, required: false),
        ]),
        ("finished", [
            field("pages", count), field("rows", count), field("selected", count), field("errors", count),
            field("skipped", count, required: false), field("succeeded", ["type": "boolean"]),
            field("reason", ["enum": .array(RunStopReason.allCases.map { .string($0.rawValue) })], required: false),
            field("signal", string, required: false),
            field("end", ["enum": .array(ListEnd.allCases.map { .string($0.rawValue) })], required: false),
            field("endWarning", string, required: false), field("cursor", string, required: false),
            field("prefetch", ["type": "integer", "minimum": 1], required: false),
        ]),
        ("custom", [field("name", string), field("payload", [:])]),
        // `run --follow --events`: one per change (ListChange.eventLine).
        ("changed", [
            field("change", ["enum": .array(ChangeKind.allCases.map { .string($0.rawValue) })]),
            field("seq", ["type": "integer", "minimum": 1]), field("key", ["type": "object"]),
            field("item", [:], required: false),
        ]),
    ]
}
