#if canImport(Glibc)
import Glibc
#endif

/// Loopback ports that refuse connections for the rest of the test process.
///
/// A socket bound and never listened on makes a connection to its port fail with
/// "connection refused", and while it stays bound the kernel gives the port to no other
/// socket that asks for any free port. A port that was merely closed could be given to the
/// next test's server at once, under load, which would then answer the test that expects
/// no answer.
public enum RefusingPort {
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// A fresh port that refuses connections.
    public static func any() throws -> Int {
        let descriptor = try bound(to: 0)
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) == 0 }
        }
        guard named else {
            close(descriptor)
            throw Unavailable(description: "cannot read the port of a bound loopback socket")
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Keeps `port`, whose server a test has just stopped, refusing connections.
    ///
    /// Waits up to five seconds for the server's listening socket to close (some servers
    /// close it on their own thread after `stop` returns), and throws if the port is still
    /// taken then: the test could not tell a refused connection from another server's answer.
    public static func hold(_ port: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            do {
                _ = try bound(to: port)
                return
            } catch {
                guard ContinuousClock.now < deadline else { throw error }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    /// A socket bound to 127.0.0.1:`port`, never closed: it lives as long as the process.
    private static func bound(to port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Unavailable(description: "cannot open a socket (errno \(errno))") }
        // Binding a port whose closed connections linger in TIME_WAIT needs the reuse flag;
        // it does not let a socket asking for any free port share this one.
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw Unavailable(description: "cannot bind 127.0.0.1:\(port) (errno \(code))")
        }
        return descriptor
    }
}
