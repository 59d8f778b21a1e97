import Foundation
import ScreensBus
import Testing

@Suite("sandbox command end to end")
struct SandboxCommandTests {
    @Test("screens-pipe sandbox --port 0 serves JSON-WS on the URL it prints and stops on SIGTERM")
    func startQueryStop() async throws {
        let log = try CommandRunner.temporaryDirectory().appendingPathComponent("sandbox.log").path
        let result = try await CommandRunner.shell(
            #"""
            "$SP" sandbox --port 0 2>"$LOG" & pid=$!
            for _ in $(seq 1 100); do grep -q listening "$LOG" && break; sleep 0.1; done
            url=$(grep -o 'http://127.0.0.1:[0-9]*' "$LOG" | head -n 1)
            curl -sf -u test@liferay.com:test -H 'Content-Type: application/json' "$url/api/jsonws/invoke" \
              -d '[{"/bookmarks.bookmarksentry/get-entries":{"groupId":20143,"folderId":0,"start":0,"end":3}},{"/bookmarks.bookmarksentry/get-entries-count":{"groupId":20143,"folderId":0}}]'
            kill -TERM $pid; wait $pid; echo "status=$?" >&2
            """#,
            environment: ["LOG": log])
        #expect(result.stderr.contains("status=0"), "stderr: \(result.stderr)")
        let body = try JSONValue(parsing: result.stdoutText)
        #expect(body[0]?.arrayValue?.count == 3)
        #expect(body[1] == .int(73))
    }

    @Test("--liferay-version 7.4 answers the 7.3+ journal signature and refuses the 7.2 one; an unknown version exits 2")
    func liferayVersion() async throws {
        let log = try CommandRunner.temporaryDirectory().appendingPathComponent("sandbox74.log").path
        let result = try await CommandRunner.shell(
            #"""
            "$SP" sandbox --port 0 --liferay-version 7.4 2>"$LOG" & pid=$!
            for _ in $(seq 1 100); do grep -q listening "$LOG" && break; sleep 0.1; done
            url=$(grep -o 'http://127.0.0.1:[0-9]*' "$LOG" | head -n 1)
            for body in \
              '{"/journal.journalarticle/get-articles":{"groupId":20143,"folderId":0,"start":0,"end":2,"obc":null}}' \
              '{"/journal.journalarticle/get-articles":{"groupId":20143,"folderId":0,"locale":"en_US","start":0,"end":2,"-orderByComparator":""}}'; do
              curl -s -o /dev/null -w '%{http_code}\n' -u test@liferay.com:test "$url/api/jsonws/invoke" -d "$body"
            done
            kill -TERM $pid; wait $pid
            grep -o 'Liferay 7.4' "$LOG"
            "$SP" sandbox --liferay-version 6.2 2>/dev/null; echo "bad=$?"
            """#,
            environment: ["LOG": log])
        #expect(result.stdoutLines == ["404", "200", "Liferay 7.4", "bad=2"], "stderr: \(result.stderr)")
    }
}
