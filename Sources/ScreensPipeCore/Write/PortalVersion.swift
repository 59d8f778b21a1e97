/// The Liferay version a `liferay` sink writes to (`liferay-version`, default 7.2): each
/// version registers its own JSON-WS signatures, so the version decides which command a
/// row becomes, and whether the service can be written at all (``PortalWriteSupport``).
public enum PortalVersion: String, Sendable, Hashable, CaseIterable, Comparable {
    case v7_0 = "7.0"
    case v7_1 = "7.1"
    case v7_2 = "7.2"
    case v7_3 = "7.3"
    case v7_4 = "7.4"

    /// 7.2, the version of the bundled sandbox (`server: sandbox`).
    public static let `default`: PortalVersion = .v7_2

    /// Older versions sort first.
    public static func < (lhs: PortalVersion, rhs: PortalVersion) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Which write commands each portal version registers, as Liferay's own definitions list
/// them (the table of `LiferayCompatibility`, each line with the file and commit it was
/// checked against): the one place a `liferay` sink asks whether a version can take it.
enum PortalWriteSupport {
    /// Why `service` over `transport` cannot be written to `version`, or nil when it can.
    static func refusal(_ service: WriteService, _ transport: WriteTransport, _ version: PortalVersion) -> String? {
        switch (service, transport) {
        case (.webContent, .jsonws) where version < .v7_2:
            // Mobile SDK android/services-v71 JournalArticleService, ios v7 LRJournalArticleService_v7:
            // only the 33- and 36-parameter add-article forms.
            "Liferay \(version.rawValue) registers add-article only in its 33- and 36-parameter forms (display, expiration and review dates...), which this sink does not send; the 8-parameter form is 7.2's and 7.3's"
        case (.webContent, .headless) where version < .v7_2:
            "headless-delivery ships with Liferay 7.2; \(version.rawValue) has no structured-contents API: write web content over 'transport: jsonws' to 7.2 or later"
        case (.image, .headless) where version < .v7_2:
            "headless-delivery ships with Liferay 7.2; \(version.rawValue) has no documents API: upload images over 'transport: jsonws'"
        case (.comment, .headless) where version < .v7_2:
            "headless-delivery ships with Liferay 7.2; \(version.rawValue) has no comments API: write comments over 'transport: jsonws'"
        case (.ddlRecord, _) where version != .v7_0:
            // Mobile SDK DDLRecordService: add-record(fieldsMap) in v7 only; v71-v73 and the
            // portal's master take DDMFormValues.
            "Liferay \(version.rawValue) registers no add-record with fieldsMap (7.0 only; 7.1 and later take DDMFormValues)"
        default:
            nil
        }
    }
}
