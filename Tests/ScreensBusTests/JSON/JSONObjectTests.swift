import Testing
import ScreensBus

@Suite("JSONObject")
struct JSONObjectTests {
    /// An object emptied and refilled, as the text path does for the members its filter reads,
    /// is the object built afresh; a copy taken before it was emptied keeps its members.
    @Test func anEmptiedObjectRefillsToTheSameValueAndLeavesCopiesAlone() {
        var members = JSONObject()
        members.appendUnchecked(key: "url", value: "https://example.com/a")
        members.appendUnchecked(key: "name", value: "a")
        let copy = JSONValue.object(members)
        members.removeAll(keepingCapacity: true)
        #expect(members.isEmpty)
        #expect(members["url"] == nil)
        members.appendUnchecked(key: "url", value: "https://example.com/b")
        #expect(JSONValue.object(members) == ["url": "https://example.com/b"])
        #expect(copy == ["url": "https://example.com/a", "name": "a"])
        members.removeAll()
        #expect(members == JSONObject())
    }
}
