import ScreensJSON

/// An Asset Publisher configuration saved under a name ("Archive Setup"), from
/// `portlet-items.json`: a dynamic selection (asset classes of the site, newest first as
/// the sample data is ordered) or a manual one (asset entries in the order picked).
struct PortletItem: Sendable {
    var name: String
    var companyId: Int64
    var dynamic: Bool
    /// The classes a dynamic selection lists; empty lists every class.
    var classNameIds: [Int64]
    /// The entries a manual selection holds, in order.
    var assetEntryIds: [Int64]

    static let file = "portlet-items.json"

    /// The saved selections of the data directory; none when the file is absent (a data
    /// directory copied before it existed still serves everything else).
    static func load(_ reader: DataFileReader) throws -> [PortletItem] {
        guard DataDirectory.readFile(reader.directory + "/" + file) != nil else { return [] }
        return try reader.array(file).map { item in
            guard let name = item["name"]?.stringValue else {
                throw SandboxError("\(reader.directory)/\(file): a portlet item needs a name")
            }
            let style = item["selectionStyle"]?.stringValue ?? "dynamic"
            guard style == "dynamic" || style == "manual" else {
                throw SandboxError("\(reader.directory)/\(file): selectionStyle is dynamic or manual, found \(style)")
            }
            return PortletItem(
                name: name, companyId: try reader.int64(item, "companyId", in: file), dynamic: style == "dynamic",
                classNameIds: (item["classNameIds"]?.arrayValue ?? []).compactMap(\.int64Value),
                assetEntryIds: (item["assetEntryIds"]?.arrayValue ?? []).compactMap(\.int64Value))
        }
    }
}

/// `ScreensAssetEntryService.getAssetEntries(long companyId, long groupId, String
/// portletItemName, Locale locale, int max)`, as ScreensAssetEntryServiceImpl does it
/// (liferay/liferay-central-test-2,
/// modules/apps/screens/screens-service/src/main/java/com/liferay/screens/service/impl/ScreensAssetEntryServiceImpl.java,
/// commit 002c614bdcb61615c88c7a2212cd20e009d394d3):
///
/// - the item is looked up by name alone; none is a `PortalException` "No portlet items
///   associated with portlet item name ...";
/// - a dynamic selection lists the site's entries of its classes, at most `max`, and `max`
///   is capped at 500;
/// - a manual selection lists its entries, whatever `max` says.
enum PortletItemService {
    static let maximumDynamicEntries = 500

    static func assetEntries(_ portal: Portal, _ params: ServiceParameters, _ account: Account) throws -> JSONValue {
        for name in ["companyId", "groupId", "portletItemName", "locale", "max"] where params.values[name] == nil {
            throw PortalError.missingParameter(name)
        }
        let groupId = try params.long("groupId")
        _ = try params.long("companyId")
        let name = try params.string("portletItemName") ?? ""
        let max = try params.long("max")
        guard let item = portal.data.portletItems.first(where: { $0.name == name }) else {
            throw PortalError(
                status: 500, type: "com.liferay.portal.kernel.exception.PortalException",
                message: "No portlet items associated with portlet item name \(name)")
        }
        if item.dynamic {
            let limit = Int(clamping: Swift.max(0, Swift.min(max, Int64(maximumDynamicEntries))))
            let classes = item.classNameIds.isEmpty ? nil : item.classNameIds
            let rows = try portal.assets(classNameIds: classes, groupIds: [groupId], visible: true, for: account)
            return .array(Array(rows.prefix(limit)))
        }
        let byId = Dictionary(
            portal.data.assets.map { ($0.row["entryId"]?.int64Value ?? 0, $0) }, uniquingKeysWith: { first, _ in first })
        let picked = item.assetEntryIds.compactMap { byId[$0] }.filter { account.canView(groupId: $0.groupId) }
        return .array(picked.map(\.row))
    }
}
