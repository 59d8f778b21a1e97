/// Where a Liferay definition the sandbox follows was read: a repository, a file in it and
/// the commit the file was read at.
///
/// Every signature, column list and schema the sandbox enforces names its source, so a
/// reader can open the same file and check the sandbox against it.
public struct DefinitionSource: Sendable, Hashable, CustomStringConvertible {
    /// `owner/name` on GitHub, e.g. `liferay/liferay-mobile-sdk`.
    public var repository: String
    /// The file inside the repository.
    public var path: String
    /// The 40-hex commit the file was read at.
    public var commit: String

    /// Creates a source.
    public init(repository: String, path: String, commit: String) {
        self.repository = repository
        self.path = path
        self.commit = commit
    }

    /// `repository@commit:path`.
    public var description: String { "\(repository)@\(commit):\(path)" }
}

extension DefinitionSource {
    private static let mobileSDK = "liferay/liferay-mobile-sdk"
    private static let mobileSDKCommit = "caf46e7e8e8fb5f76bbd6d6d38a244a0530517f9"

    /// A Mobile SDK service class, generated from a running portal's JSON-WS catalogue.
    ///
    /// `sdk` is the SDK's folder for the portal version (`v7`, `v71`, `v72`, `v73`) and
    /// `service` the class, e.g. `bookmarksentry/BookmarksEntryService`.
    static func mobileSDKAndroid(_ sdk: String, _ service: String) -> DefinitionSource {
        DefinitionSource(
            repository: mobileSDK,
            path: "android/services-\(sdk)/src/main/java/com/liferay/mobile/android/\(sdk)/\(service).java",
            commit: mobileSDKCommit)
    }

    /// The iOS Mobile SDK's service class for 7.0 (the Android 7.0 SDK has no journal service).
    static func mobileSDKiOS70(_ service: String, _ className: String) -> DefinitionSource {
        DefinitionSource(
            repository: mobileSDK, path: "ios/Source/Service/v7/\(service)/\(className)_v7.m", commit: mobileSDKCommit)
    }

    /// Liferay Screens' client for the services of its portal plugin (7.x).
    static func screens70(_ className: String) -> DefinitionSource {
        DefinitionSource(
            repository: "liferay/liferay-screens",
            path: "android/library/src/main/java/com/liferay/mobile/screens/service/v70/\(className).java",
            commit: "c2e407f233afad32a6a10202781fa7155b86a9c0")
    }

    /// A file of liferay-portal, read in the carmenbianca fork (a 7.4-era copy the code index holds in full).
    private static func liferayPortalFork(_ path: String) -> DefinitionSource {
        DefinitionSource(
            repository: "carmenbianca/liferay-portal", path: path, commit: "102b5f9bb0671f64608174316b440badb791ac99")
    }

    /// How JSON-WS picks an action: every parameter of a signature must be named; the one
    /// with most matches wins (`_getJSONWebServiceActionConfig`, `_countMatchedParameters`).
    public static let actionMatching = liferayPortalFork(
        "portal-impl/src/com/liferay/portal/jsonwebservice/JSONWebServiceActionsManagerImpl.java")

    /// How a parameter key names a parameter: `-name` (null), `+name` (a type), `name:type`,
    /// and `name.field` (an inner parameter that names nothing by itself).
    public static let parameterNaming = liferayPortalFork(
        "portal-impl/src/com/liferay/portal/jsonwebservice/JSONWebServiceActionParametersMap.java")

    /// Every command gets `serviceContext` by default (`Void.TYPE`, which the action turns
    /// into the request's ServiceContext), put before the command's own parameters, so an
    /// explicit `serviceContext: null` replaces it with null.
    public static let serviceContextDefault = liferayPortalFork(
        "portal-impl/src/com/liferay/portal/jsonwebservice/JSONWebServiceActionParameters.java")

    /// headless-delivery's OpenAPI: `StructuredContent`, `ContentField` and
    /// `ContentFieldValue` (whose `data` is `type: string`).
    public static let headlessDeliveryOpenAPI = DefinitionSource(
        repository: "liferay/liferay-portal",
        path: "modules/apps/headless/headless-delivery/headless-delivery-impl/rest-openapi.yaml",
        commit: "4be0bdd7b68e2e80c40a14f56536b8d4fe966707")

    /// The status of each failure: 404 for an unknown action or a missing model, 403 for a
    /// permission failure, 500 for anything else.
    public static let errorStatus = liferayPortalFork(
        "portal-impl/src/com/liferay/portal/jsonwebservice/JSONWebServiceServiceAction.java")

    /// The JSON-WS error body: `error` {message, type}, `exception`, `throwable`.
    public static let errorBody = DefinitionSource(
        repository: "liferay/liferay-portal",
        path: "portal-impl/src/com/liferay/portal/json/JSONFactoryImpl.java",
        commit: "434aeca6b47cb253365a3f3ac5ca22f5f9f3460c")

    /// How the Mobile SDK writes an object parameter: `+name: class` and `name.field`
    /// entries, or `name: null` when no object is given.
    public static let objectParameters = DefinitionSource(
        repository: mobileSDK,
        path: "android/android-sdk/src/main/java/com/liferay/mobile/android/service/BaseService.java",
        commit: mobileSDKCommit)
}
