import Testing
@testable import ScreensPipeCore
import ScreensPipe

/// A gateway's or web server's HTML error page is named by its title in the status error.
@Suite struct HTMLErrorTitleTests {
    private func message(_ body: String, status: Int = 400) -> String {
        let response = HTTPResponse(status: status, body: Array(body.utf8), effectiveURL: "https://gw.example/x")
        return LiferayErrorBody.error(for: response, page: 0, request: "GET https://gw.example/x").message
    }

    @Test func quotesTheTitle() {
        #expect(message("<html>\n<head><title>400 No required SSL certificate was sent</title></head></html>") == "HTTP 400: 400 No required SSL certificate was sent")
        #expect(message("<HTML><TITLE> 502 Bad Gateway </TITLE>", status: 502) == "HTTP 502: 502 Bad Gateway")
    }

    @Test func withoutATitleTheStatusAlone() {
        #expect(message("plain text") == "HTTP 400")
        #expect(message("<title></title>") == "HTTP 400")
        #expect(message("<title>never closed") == "HTTP 400")
    }

    @Test func theTitleIsServerTextAndSanitized() {
        let shown = message("<title>\u{1b}]0;owned\u{7}</title>")
        #expect(!shown.contains("\u{1b}") && !shown.contains("\u{7}"), "\(shown)")
    }
}
