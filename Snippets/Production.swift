// A production service: the core product alone, no sandbox, the cache where the service says.

// snippet.production
import ScreensPipeCore

// No BundledSandbox: this program links no NIO server and no sample data, and a pipeline
// that says `server: sandbox` is refused. The cache goes where the service's volume is;
// nothing is written under $HOME.
var environment = PipelineEnvironment.current(cacheDirectory: .directory("/var/cache/bookmarks-service"))
environment.clock = .system                         // the default: the cache's ttl in real time
let pipeline = try Pipeline(
    yaml: """
        name: bookmarks
        source:
          type: liferay-jsonws
          server: ${PORTAL_URL}
          auth: { basic: { username: "${PORTAL_USER}", password: "${PORTAL_PASSWORD}" } }
          rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
        """,
    sink: .discard, environment: environment)
// snippet.end
_ = pipeline
