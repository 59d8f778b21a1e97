import Logging
import Sandbox
import Testing

@testable import ScreensPipeCore

/// The keeper against the sandbox portal, with the wire behaviour a real portal has: a wrong
/// login is LoginAction's 500, a session unused past the portal's timeout is replaced before
/// it is sent, and landing on the sign-in page is no session.
@Suite struct PortalSessionKeeperTests {
    /// A keeper of `username`/`password` on `server`, and the sender and source it is asked with.
    private static func keeper(
        _ server: SandboxServer, username: String = "test@liferay.com", password: String = "test", idleLimit: Duration = .seconds(60)
    ) throws -> (PortalSessionKeeper, RetryingSender, SourceSpec) {
        let yaml = """
            source:
              type: liferay-jsonws
              server: '\(server.baseURL)'
              auth: { cookie: { username: '\(username)', password: '\(password)' } }
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
              retry: { attempts: 1 }
            """
        let source = try PipelineLoader(environment: [:]).load(yaml: yaml, file: "keeper.yaml").source
        guard case .cookie(let spec) = source.auth else { throw ScreensPipeError.configuration("not a cookie sign-in") }
        let keeper = PortalSessionKeeper(
            spec: spec, loginURL: spec.loginURL(against: server.baseURL), logger: Logger(label: "keeper-tests"), idleLimit: idleLimit)
        return (keeper, RetryingSender(client: HTTPClient(), policy: RetryPolicy(source.retry)), source)
    }

    private static func withServer(_ body: (SandboxServer) async throws -> Void) async throws {
        let server = try await SandboxServer.start(SandboxConfiguration())
        do {
            try await body(server)
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test("a session unused for the idle limit is replaced before it is sent; one in use is kept")
    func idleSessionIsReplaced() async throws {
        try await Self.withServer { server in
            let (keeper, sender, source) = try Self.keeper(server, idleLimit: .milliseconds(300))
            let first = try await keeper.credentials(sender: sender, source: source)
            let again = try await keeper.credentials(sender: sender, source: source)
            #expect(again.mark == first.mark && server.cookieSignIns == 1)
            try await Task.sleep(for: .milliseconds(450))
            let renewed = try await keeper.credentials(sender: sender, source: source)
            #expect(renewed.mark != first.mark && server.cookieSignIns == 2)
        }
    }

    @Test("a wrong login (LoginAction's 500) is a clear authentication error, the password nowhere")
    func wrongLogin() async throws {
        try await Self.withServer { server in
            let (keeper, sender, source) = try Self.keeper(server, password: "WRONG-pw-4242")
            do {
                _ = try await keeper.credentials(sender: sender, source: source)
                Issue.record("signed in with a wrong password")
            } catch let error as ScreensPipeError {
                #expect(error.code == .authentication && error.status == 500)
                #expect(error.description.contains("the username or password is wrong"), "\(error)")
                #expect(!error.description.contains("WRONG-pw-4242"))
            }
        }
    }

    @Test("a 401, a 403 (a guest's answer to an ended session) and a redirect refuse the session; other answers do not")
    func refusals() async throws {
        try await Self.withServer { server in
            let (keeper, _, _) = try Self.keeper(server)
            #expect([401, 403, 302, 303].allSatisfy(keeper.refuses(status:)))
            #expect(![200, 400, 404, 500, 503].contains(where: keeper.refuses(status:)))
        }
    }

    @Test("landing on the sign-in page, or on the login portlet, is no session")
    func signInPage() {
        let login = "https://portal.example/c/portal/login"
        #expect(PortalSessionKeeper.isSignInPage("https://portal.example/c/portal/login?redirect=%2Fweb%2Fguest", loginURL: login))
        #expect(PortalSessionKeeper.isSignInPage(
            "https://portal.example/web/guest/home?p_p_id=com_liferay_login_web_portlet_LoginPortlet&p_p_state=maximized", loginURL: login))
        #expect(!PortalSessionKeeper.isSignInPage("https://portal.example/web/guest", loginURL: login))
        #expect(!PortalSessionKeeper.isSignInPage("https://portal.example/c/portal/login-other", loginURL: login))
    }
}
