/// What Liferay Screens keeps in `LiferayServerContext` besides the server URL: the
/// portal instance (company) and the default site (group) of the app.
///
/// Written `server: { url: URL, company-id: N, group-id: N }`. A Screenlet attribute
/// `groupId: 0` (or none) means "the server context's site", and the services that take a
/// company (an Asset Publisher's saved selection) use ``companyId``.
public struct ServerContext: Sendable, Hashable {
    /// `company-id`: the portal instance, as `LiferayServerContext.companyId`.
    public var companyId: Int64?
    /// `group-id`: the default site, as `LiferayServerContext.groupId`.
    public var groupId: Int64?

    /// Creates a server context; either id may be left out.
    public init(companyId: Int64? = nil, groupId: Int64? = nil) {
        self.companyId = companyId
        self.groupId = groupId
    }
}

/// `portlet-item-name:` on a `liferay-jsonws` source: an Asset Publisher configuration saved
/// under a name ("Archive Setup"), loaded through
/// `ScreensAssetEntryService.getAssetEntries(companyId, groupId, portletItemName, locale, max)`.
///
/// The service is not paged: one call returns the selection, at most ``max`` entries for a
/// dynamic selection (the portal caps that at 500) and every entry of a manual one. The list
/// is that one answer; it ends with it (`end: row-count`, the count being the rows returned).
public struct PortletItemSelection: Sendable, Hashable {
    /// The name the configuration was saved under.
    public var name: String
    /// The portal instance the service looks the name up in (`server.company-id`).
    public var companyId: Int64
    /// The site whose assets a dynamic selection lists (`groupId`, or `server.group-id`).
    public var groupId: Int64
    /// The most entries asked for: the source's `first-page-size`, as Screens asks for its
    /// first page.
    public var max: Int

    /// The Screens service that takes a saved selection.
    public static let service = "/screens.screensassetentry/get-asset-entries"
    /// The most entries the portal returns for a dynamic selection, whatever `max` says
    /// (ScreensAssetEntryServiceImpl caps `max` at 500).
    public static let portalMaximum = 500

    /// Creates a selection of `name` in company `companyId`, site `groupId`.
    public init(name: String, companyId: Int64, groupId: Int64, max: Int) {
        self.name = name
        self.companyId = companyId
        self.groupId = groupId
        self.max = max
    }
}
