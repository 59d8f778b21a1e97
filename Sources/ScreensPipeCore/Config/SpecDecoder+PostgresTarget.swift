extension SpecDecoder {
    /// `url:` (`postgres://user@host:port/database`), `tls:` and `ca-file:` of a section that
    /// may name a PostgreSQL database; nil without `url:`. `exclusive` is a key that names
    /// another destination and may not be given with `url:`.
    package func decodePostgresTarget(_ section: Section, besides exclusive: String) -> PostgresTarget? {
        guard let urlNode = section["url"] else {
            for key in ["tls", "ca-file"] {
                if let node = section[key] {
                    context.fail("'\(key)' applies only with 'url' (a PostgreSQL database)", at: node.location)
                }
            }
            return nil
        }
        if let other = section[exclusive] {
            context.fail("'\(exclusive)' and 'url' name two places; give one", at: other.location)
        }
        guard let url = context.nonEmptyString(urlNode, key: "url") else { return nil }
        do throws(ScreensPipeError) {
            return try PostgresTarget(
                url: url, tls: section.choice("tls", PostgresTarget.TLSMode.self), caFile: section.nonEmptyString("ca-file"))
        } catch {
            context.fail(error.message, at: urlNode.location)
            return nil
        }
    }
}
