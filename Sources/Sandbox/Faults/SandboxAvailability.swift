import ScreensBus
import Synchronization

/// Whether the sandbox portal is up: tests and the "Offline writes" guide take it down and
/// bring it back on command, as a portal behind a load balancer goes away for maintenance.
///
/// `POST /_sandbox/availability?state=down` makes every data endpoint (JSON-WS, headless,
/// REST) answer 503 Service Unavailable without carrying anything out, until
/// `POST /_sandbox/availability?state=up`; the data is kept meanwhile. `GET` tells the state.
final class SandboxAvailability: Sendable {
    static let path = "/_sandbox/availability"

    private let down = Atomic<Bool>(false)

    var isDown: Bool { down.load(ordering: .acquiring) }

    func set(down value: Bool) { down.store(value, ordering: .releasing) }

    /// What a data request gets while the portal is down: nothing is carried out.
    static let downResponse = SandboxResponse.json(
        503,
        [
            "exception": "Service Unavailable",
            "error": ["message": "the sandbox portal is down (POST /_sandbox/availability?state=up brings it back)", "type": "com.liferay.portal.kernel.exception.SystemException"],
        ])

    /// Answers the control endpoint.
    func respond(to request: SandboxRequest) -> SandboxResponse {
        switch request.method {
        case "GET":
            break
        case "POST":
            switch request.query["state"] {
            case "down"?: set(down: true)
            case "up"?: set(down: false)
            default: return .json(400, ["error": "'state' must be down or up"])
            }
        default:
            var response = SandboxResponse.text(405, "Method Not Allowed\n")
            response.headers.append(("Allow", "GET, POST"))
            return response
        }
        return .json(200, ["state": .string(isDown ? "down" : "up")])
    }
}

extension SandboxServer {
    /// Takes the portal down (every data request answers 503 and changes nothing) or brings
    /// it back, as `POST /_sandbox/availability?state=down|up` does.
    public func setAvailable(_ available: Bool) {
        state.router.availability.set(down: !available)
    }
}
