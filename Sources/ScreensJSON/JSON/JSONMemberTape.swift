/// The members of each row that a stage reads, to be found while a page's rows are checked
/// (``JSONValue/parse(_:keepingElementTextsAt:skippingElements:findingMembers:)``), so the
/// stage does not walk each row's text again to find them.
package struct JSONMemberSelection: Sendable, Equatable {
    /// Each wanted key's bytes, to its slot. A key is matched as it is written: one written
    /// with an escape in it is not, and its row is marked (``JSONMemberTape/Status``).
    package let slots: [[UInt8]: Int]
    /// One more than the highest slot.
    package let count: Int

    package init(slots: [[UInt8]: Int]) {
        self.slots = slots
        count = (slots.values.max() ?? -1) + 1
    }

    /// The slot of the key whose bytes are `key`, or -1.
    func slot(of key: UnsafeBufferPointer<UInt8>) -> Int {
        slots[Array(key)] ?? -1
    }
}

/// Where the selected members of each element of a page's rows are, recorded while the rows
/// were checked.
///
/// Each element has ``stride`` entries: its ``Status``, then for each slot of the selection
/// the offsets of the member's value in the element's compact text (``JSONElementTexts``),
/// counted from the element's first byte: where it starts, and one past where it ends; -1 and
/// -1 when the element has no such member. A key that occurs twice is where its last member
/// is, as in a parsed object.
package struct JSONMemberTape: Sendable {
    /// What an element's entries say.
    package enum Status: Int {
        /// An object whose keys were all read: a slot without offsets has no member.
        case object = 0
        /// Not an object, or an object with a key written with an escape: its members must be
        /// read some other way.
        case unread = 1
    }

    /// The members that were looked for.
    package let selection: JSONMemberSelection
    /// ``stride`` entries per element.
    package let entries: [Int]

    /// The entries of one element: its status and two offsets per slot.
    package var stride: Int { 1 + 2 * selection.count }

    /// A tape of `entries` for `count` elements; nil when there are not as many entries.
    init?(selection: JSONMemberSelection, entries: [Int], count: Int) {
        guard entries.count == count * (1 + 2 * selection.count) else { return nil }
        self.selection = selection
        self.entries = entries
    }
}
