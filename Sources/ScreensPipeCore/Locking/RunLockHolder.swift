public import struct Foundation.Date

/// Who holds a run lock: enough for a person to find the process and decide what to do.
public struct RunLockHolder: Sendable, Hashable, Codable {
    /// The holder's process id, on its host.
    public var pid: Int32
    /// The holder's host name.
    public var host: String
    /// When the holder took the lock.
    public var since: Date

    /// A holder as a lock's record names it.
    public init(pid: Int32, host: String, since: Date) {
        self.pid = pid
        self.host = host
        self.since = since
    }
}
