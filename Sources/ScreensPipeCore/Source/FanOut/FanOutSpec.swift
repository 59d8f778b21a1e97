import ScreensBus

/// `for-each:` on a source: the source runs once per row of another list (its parent),
/// with `${name.field}` placeholders in its path, query and params resolved from that row.
///
/// ```yaml
/// source:
///   type: liferay-headless
///   server: sandbox
///   path: /o/headless-delivery/v1.0/sites/${site.id}/structured-contents
///   for-each:
///     as: site
///     list: { type: liferay-headless, path: /o/headless-admin-user/v1.0/my-user-account/sites }
///   include: [site.name]
/// ```
///
/// The parent list may have a `for-each` of its own (site -> folder -> bookmark) or be a
/// tree (``RecursionSpec``). It takes `server`, `auth` and the other network keys of the
/// source around it unless it sets them itself.
public struct FanOutSpec: Sendable, Hashable {
    /// `as:`: the name placeholders use for a row of the parent list (`${site.id}`).
    public var name: String
    /// `concurrency:`: child lists loaded at once, and the run's budget of requests in
    /// flight, shared by every list and its page prefetch. Only the outermost `for-each`
    /// sets it; nil takes the source's `pagination.prefetch`.
    public var concurrency: Int?
    /// `max-parents:`: the most rows the parent list may have; more is an error.
    public var maxParents: Int
    private var box: ListBox

    /// The parent list, as a `source:` section of its own.
    public var list: SourceSpec {
        get { box.list }
        set { box = ListBox(newValue) }
    }

    /// Creates a fan-out over the rows of `list`, named `name` in placeholders.
    public init(name: String, list: SourceSpec, concurrency: Int? = nil, maxParents: Int = FanOutSpec.defaultMaxParents) {
        self.name = name
        self.concurrency = concurrency
        self.maxParents = maxParents
        box = ListBox(list)
    }

    /// The default of `max-parents`.
    public static let defaultMaxParents = 10_000

    /// Holds the parent list out of line: a source spec cannot contain itself by value.
    private final class ListBox: Sendable, Hashable {
        let list: SourceSpec
        init(_ list: SourceSpec) { self.list = list }
        static func == (lhs: ListBox, rhs: ListBox) -> Bool { lhs.list == rhs.list }
        func hash(into hasher: inout Hasher) { hasher.combine(list) }
    }
}

/// `recursive:` on a source: the list is a tree's root level, and each of its rows has a
/// list of its own, asked for with the row's `key` value as the `param` parameter.
///
/// ```yaml
/// recursive: { key: folderId, param: parentFolderId, max-depth: 8 }
/// ```
///
/// The tree is walked list by list, depth first: a level's whole list, then the list of
/// its first row's children (and theirs), then its second row's, and so on. A row whose
/// key was already listed (a folder inside itself, or inside its own child) is an error
/// naming it, as is a tree deeper than `max-depth`.
public struct RecursionSpec: Sendable, Hashable {
    /// `key:`: the field of a row that identifies it (`folderId`).
    public var key: String
    /// `param:`: the parameter that asks for a row's children (`parentFolderId`): set in
    /// `params` of `rows` and `count` for JSON-WS, in `query` for the other types.
    public var param: String
    /// `max-depth:`: levels below the root list; a deeper tree is an error.
    public var maxDepth: Int

    /// Creates a recursion over `key`, asking for children with `param`.
    public init(key: String, param: String, maxDepth: Int = RecursionSpec.defaultMaxDepth) {
        self.key = key
        self.param = param
        self.maxDepth = maxDepth
    }

    /// The default of `max-depth`.
    public static let defaultMaxDepth = 16
}

/// One entry of `include:`: a parent's field (`site.name`) copied into each output row as
/// `_parent.<name>.<field>`.
public struct IncludedField: Sendable, Hashable, CustomStringConvertible {
    /// The `as` name of the parent (`site`).
    public var parent: String
    /// The field's path in the parent row (`name`, `creator.name`).
    public var field: FieldPath

    /// Creates an included field.
    public init(parent: String, field: FieldPath) {
        self.parent = parent
        self.field = field
    }

    /// `site.name`, as written.
    public var description: String { "\(parent).\(field)" }
}

extension SourceSpec {
    /// Whether loading this source goes list by list (a `for-each` or a tree) instead of
    /// one paged list.
    public var fansOut: Bool { forEach != nil || recursive != nil }

    /// The `as` names this source's placeholders may use: its own parent's, and those of
    /// the parents above it.
    var visibleParentNames: [String] {
        guard let forEach else { return [] }
        return forEach.list.visibleParentNames + [forEach.name]
    }
}
