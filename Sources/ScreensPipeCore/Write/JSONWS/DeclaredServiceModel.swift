import ScreensBus

/// `service: custom`: rows become one JSON-WS command the pipeline names, its parameters
/// mapped from row fields.
///
/// ```yaml
/// sink:
///   type: liferay
///   service: custom
///   command: /bookmarks.bookmarksentry/add-entry
///   fields:
///     groupId: 20143                # a constant
///     folderId: 20201
///     name: row.title               # a row field (a dotted path into the row)
///     url: row.link
///     description: row.summary
///   optional: [description]
///   key: [url]
/// ```
///
/// Every mapped parameter is required unless `optional` lists it: a row without it is a
/// reject with its line number, before any request. `serviceContext` is not mapped: the
/// portal gives every command the request's own, and a null would replace it. The command is sent in batches like
/// the other services. A declared command has no lookup, so an ambiguous failure is not
/// sent again: the write stops naming the rows, which the journal keeps pending.
public struct DeclaredService: Sendable, Hashable {
    /// The JSON-WS path of the command, e.g. `/bookmarks.bookmarksentry/add-entry`.
    public var command: String
    /// Each parameter's value, in declaration order.
    public var parameters: [Parameter]

    /// Where one parameter's value comes from.
    public struct Parameter: Sendable, Hashable {
        public var name: String
        public var value: Value
        /// Whether a row may lack it (the parameter is then sent as null).
        public var optional: Bool

        public init(name: String, value: Value, optional: Bool = false) {
            self.name = name
            self.value = value
            self.optional = optional
        }
    }

    /// A constant, or a path into the row (`row.a.b`).
    public enum Value: Sendable, Hashable {
        case constant(JSONValue)
        case row([String])
    }

    public init(command: String, parameters: [Parameter]) {
        self.command = command
        self.parameters = parameters
    }
}

/// One row's parameters for a declared command.
struct DeclaredRow: JournaledRow, Hashable {
    var line: Int
    var params: JSONObject
    var key: String
    var content: String { JSONValue.object(params).jsonString }
}

struct DeclaredServiceModel: JSONWSWriteModel {
    let spec: LiferaySinkSpec
    let service: DeclaredService

    var serviceName: String { service.command }
    var idField: String { "id" }
    var updatesNeedLookup: Bool { false }
    var canUpdate: Bool { false }

    func row(_ value: JSONValue, line: Int) throws(RowRejection) -> DeclaredRow {
        guard case .object = value else {
            throw RowRejection(message: "a row is a JSON object, found \(value.typeName)")
        }
        var params = JSONObject(minimumCapacity: service.parameters.count)
        for parameter in service.parameters {
            switch parameter.value {
            case .constant(let constant):
                params.appendUnchecked(key: parameter.name, value: constant)
            case .row(let path):
                var current: JSONValue? = value
                for component in path { current = current?[component] }
                if let found = current, !found.isNull {
                    params.appendUnchecked(key: parameter.name, value: found)
                } else if parameter.optional {
                    params.appendUnchecked(key: parameter.name, value: .null)
                } else {
                    throw RowRejection(message: "missing 'row.\(path.joined(separator: "."))' for the required parameter '\(parameter.name)' of \(service.command)")
                }
            }
        }
        let key = spec.key.map { params[$0]?.jsonString ?? "null" }.joined(separator: "\u{1F}")
        return DeclaredRow(line: line, params: params, key: key)
    }

    func addCommand(_ row: DeclaredRow) -> JSONWSCommand { (service.command, row.params) }

    /// Never called: `canUpdate` is false, so a changed row is refused instead.
    func updateCommand(_ row: DeclaredRow, _ found: FoundEntry) -> JSONWSCommand { (service.command, row.params) }

    /// The result's first whole-number field that ends in `Id` (`entryId`, `recordId`).
    func id(ofResult result: JSONValue) -> Int64? {
        guard case .object(let object) = result else { return nil }
        return object.first { $0.key.hasSuffix("Id") && $0.value.int64Value != nil }?.value.int64Value
    }

    func lookup(_ rows: [DeclaredRow], transport: JSONWSBookmarkTransport) async throws(ScreensPipeError) -> [String: FoundEntry]? { nil }

    func details(_ row: DeclaredRow) -> JSONObject {
        var details = JSONObject()
        for name in spec.key { details[name] = row.params[name] ?? .null }
        return details
    }

    func inputText(_ row: DeclaredRow) -> String { row.content }
}

extension SpecDecoder {
    /// `command`, `fields` and `optional` of a `service: custom` sink.
    func decodeDeclaredService(_ section: Section) -> DeclaredService? {
        guard let command = section.required("command", for: "service: custom").flatMap({ context.nonEmptyString($0, key: "command") }) else { return nil }
        guard command.hasPrefix("/"), !command.contains(where: \.isWhitespace) else {
            context.fail("'command' is a JSON-WS path such as /bookmarks.bookmarksentry/add-entry, found '\(command.prefix(200))'", at: section["command"]?.location ?? section.location)
            return nil
        }
        guard case .mapping(let mapping)? = section.required("fields", for: "service: custom") else {
            if let node = section["fields"] { context.fail("'fields' maps parameter names to row.<field> or constants, found \(node.foundDescription)", at: node.location) }
            return nil
        }
        var optional: Set<String> = []
        if let node = section["optional"] {
            let items: [YAMLNode]
            if case .sequence(let sequence) = node { items = sequence.items } else { items = [node] }
            for item in items { if let name = context.nonEmptyString(item, key: "optional") { optional.insert(name) } }
        }
        var parameters: [DeclaredService.Parameter] = []
        for pair in mapping.pairs {
            let name = pair.key.text
            let value: DeclaredService.Value
            if case .scalar(let scalar) = pair.value, scalar.style == .plain, scalar.text.hasPrefix("row.") {
                let path = scalar.text.dropFirst(4).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                guard path.allSatisfy({ !$0.isEmpty }) else {
                    context.fail("'\(scalar.text)' is not a row field: write row.<field>[.<field>...]", at: scalar.location)
                    continue
                }
                value = .row(path)
            } else {
                value = .constant(context.json(pair.value, key: name))
                if name.lowercased() == "servicecontext", case .constant(.null) = value {
                    // JSON-WS puts the request's ServiceContext first and the command's null over it.
                    context.fail(
                        "'serviceContext: null' makes the portal's service fail on a null ServiceContext: leave it out, the portal builds one from the request",
                        at: pair.key.location)
                    continue
                }
            }
            parameters.append(DeclaredService.Parameter(name: name, value: value, optional: optional.contains(name)))
        }
        if parameters.isEmpty { context.fail("'fields' must map at least one parameter", at: mapping.location) }
        for name in optional.sorted() where !parameters.contains(where: { $0.name == name }) {
            context.fail("'optional' names '\(name)', which 'fields' does not map", at: section["optional"]?.location ?? section.location)
        }
        return DeclaredService(command: command, parameters: parameters)
    }
}
