import ScreensPipeCore
import ScreensBus
internal import Foundation
internal import GRDB

/// The class-name table: asset class name ids by server, so `classes:` costs one lookup
/// per server and class, ever.
extension CacheStore {
    /// The stored ids of `names` on `server` (a ``CacheKey`` server text); names not stored
    /// are absent.
    public func classNameIds(server: String, names: [String]) async throws(ScreensPipeError) -> [String: Int64] {
        try await performAsync("read class names") { [pool] in
            try await pool.read { db in
                var ids: [String: Int64] = [:]
                for name in names {
                    if let id = try Int64.fetchOne(
                        db, sql: "SELECT class_name_id FROM class_name WHERE server = ? AND value = ?", arguments: [server, name])
                    {
                        ids[name] = id
                    }
                }
                return ids
            }
        }
    }

    /// Stores `ids` for `server`, replacing what was there, in one transaction.
    public func storeClassNameIds(server: String, _ ids: [String: Int64]) async throws(ScreensPipeError) {
        let now = Date().timeIntervalSince1970
        try await performAsync("store class names") { [pool] in
            try await pool.write { db in
                for (name, id) in ids.sorted(by: { $0.key < $1.key }) {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO class_name (server, value, class_name_id, fetched_at) VALUES (?, ?, ?, ?)",
                        arguments: [server, name, id, now])
                }
            }
        }
    }
}
