@testable import Sandbox
import ScreensJSON
import Testing

/// The sandbox re-lays out its answers byte by byte: the whitespace changes, nothing else.
@Suite("The sandbox's JSON layouts")
struct JSONLayoutTests {
    static let document = #"{"items":[{"id":9007199254740993,"title":"a \"quoted\" {brace}, [bracket]: colon","empty":{},"none":[],"n":-1.5e-7,"ok":true,"gone":null}],"page":1,"tags":["x","y\\"]}"#

    @Test("pretty is two-space indentation with `\"name\": value`, empty containers kept as {} and []")
    func pretty() throws {
        let pretty = try #require(SandboxJSONLayout.pretty.relaid(Array(#"{"a":[1,{}],"b":{"c":[]},"d":"x, y: {z}"}"#.utf8)))
        #expect(String(decoding: pretty, as: UTF8.self) == """
            {
              "a": [
                1,
                {}
              ],
              "b": {
                "c": []
              },
              "d": "x, y: {z}"
            }
            """)
    }

    @Test("every layout parses to the same value, and laying out again changes nothing", arguments: SandboxJSONLayout.allCases)
    func sameDocument(_ layout: SandboxJSONLayout) throws {
        let compact = Array(Self.document.utf8)
        let laidOut = try #require(layout.relaid(compact))
        #expect(try JSONValue(parsing: laidOut) == JSONValue(parsing: compact))
        #expect(layout.relaid(laidOut) == laidOut)
        #expect(SandboxJSONLayout.compact.relaid(laidOut) == compact)
        switch layout {
        case .compact: #expect(laidOut == compact)
        case .spaced: #expect(String(decoding: laidOut, as: UTF8.self).hasPrefix(#"{"items": [{"id": 9007199254740993, "title": "a \"quoted"#))
        case .pretty: #expect(String(decoding: laidOut, as: UTF8.self).contains("\n      \"n\": -1.5e-7,\n"))
        }
    }

    @Test("what is not one balanced JSON text is sent as it is", arguments: [
        #"{"a":1"#, #"{"a":1]"#, #"[1,2]]"#, #""unterminated"#, #"{"a":1}{"b":2}"#, "", "   ", #"1,2"#, #"[1]:"#, #"{"a\"}"#,
    ])
    func unbalanced(_ text: String) {
        for layout in SandboxJSONLayout.allCases {
            #expect(layout.relaid(Array(text.utf8)) == nil, "\(layout): \(text)")
        }
    }
}
