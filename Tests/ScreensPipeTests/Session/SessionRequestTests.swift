import ScreensBus
import ScreensPipe
import Testing

/// Reading session commands: every line either is a command or says why it is not.
@Suite("session: command lines")
struct SessionRequestTests {
    private func read(_ line: String) -> SessionRequest {
        SessionRequest(line: Array(line.utf8))
    }

    private func reason(_ line: String) -> String? {
        if case .unreadable(let reason) = read(line).operation { return reason }
        return nil
    }

    @Test("every op, with string, number and missing ids")
    func operations() {
        #expect(read(#"{"op":"load","id":"a"}"#) == SessionRequest(.load, id: "a"))
        #expect(read(#"{"op":"next","id":7}"#) == SessionRequest(.next, id: 7))
        #expect(read(#"{"id":"p","op":"page","page":3}"#) == SessionRequest(.page(3), id: "p"))
        #expect(read(#"{"op":"refresh"}"#) == SessionRequest(.refresh))
        #expect(read(#"{"op":"select","row":0,"id":null}"#) == SessionRequest(.select(row: 0)))
        #expect(read(#"{"op":"close","id":12345678901234567890123}"#) == SessionRequest(.close, id: .number("12345678901234567890123")))
    }

    @Test("bad commands are unreadable, with the reason and the id when there is one")
    func badCommands() throws {
        #expect(try #require(reason("{\"op\":")).contains("not JSON"))
        #expect(try #require(reason("[1,2]")).contains("found array"))
        #expect(try #require(reason(#"{"id":1}"#)).contains("no \"op\""))
        #expect(try #require(reason(#"{"op":5}"#)).contains("must be a string"))
        #expect(try #require(reason(#"{"op":"jump"}"#)).contains("unknown op 'jump'"))
        #expect(try #require(reason(#"{"op":"page"}"#)).contains("needs \"page\""))
        #expect(try #require(reason(#"{"op":"page","page":-1}"#)).contains("from 0"))
        #expect(try #require(reason(#"{"op":"page","page":1.5}"#)).contains("found 1.5"))
        #expect(try #require(reason(#"{"op":"page","page":"2"}"#)).contains("found \"2\""))
        #expect(try #require(reason(#"{"op":"select","row":99999999999}"#)).contains("integer from 0"))
        #expect(try #require(reason(#"{"op":"next","page":2}"#)).contains("unknown key 'page'"))
        #expect(try #require(reason(#"{"op":"load","id":{"a":1}}"#)).contains("string or a number"))
        #expect(read(#"{"op":"jump","id":"j"}"#).id == "j")
        let longID = String(repeating: "i", count: 300)
        #expect(try #require(reason(#"{"op":"load","id":"\#(longID)"}"#)).contains("longer than 256 bytes"))
        let longNumber = String(repeating: "9", count: 300)
        #expect(try #require(reason(#"{"op":"load","id":\#(longNumber)}"#)).contains("longer than 256 bytes"))
    }

    @Test("hostile lines: an unknown op is quoted clipped, deep nesting and huge lines are refused")
    func hostileLines() throws {
        let longOp = String(repeating: "x", count: 10_000)
        let clipped = try #require(reason(#"{"op":"\#(longOp)"}"#))
        #expect(clipped.count < 300)
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(reason(deep) != nil)
        let huge = Array(repeating: UInt8(ascii: " "), count: SessionRequest.maximumLineLength + 1)
        let refused = SessionRequest(line: huge)
        guard case .unreadable(let message) = refused.operation else {
            Issue.record("a line over the limit was read as a command")
            return
        }
        #expect(message.contains("longer than the limit of 65536"))
    }
}
