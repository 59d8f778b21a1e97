import ScreensJSON

/// A failure the portal reports to the client, with the status and Java exception type a
/// real Liferay would use.
struct PortalError: Error, Sendable {
    var status: Int
    /// The Java exception class, e.g. `com.liferay.portal.kernel.exception.NoSuchGroupException`.
    var type: String
    var message: String

    /// The JSON-WS error body, as `JSONFactoryImpl.serializeThrowable` writes it:
    /// `{"error":{"message":...,"type":...},"exception":<message>,"throwable":"<type>: <message>"}`
    /// (``DefinitionSource/errorBody``).
    var jsonwsBody: JSONValue {
        [
            "error": ["message": .string(message), "type": .string(type)],
            "exception": .string(message),
            "throwable": .string("\(type): \(message)"),
        ]
    }

    /// No signature at `path` matches the command's parameter names. The invoker looks
    /// actions up with a null HTTP method; the context is the path's part before its last
    /// dot (`bookmarks` for `/bookmarks.bookmarksentry/...`), `null` for portal services.
    static func noSuchAction(_ path: String) -> PortalError {
        PortalError(
            status: 404, type: "com.liferay.portal.kernel.jsonwebservice.NoSuchJSONWebServiceException",
            message: "No JSON web service action with path \(path) and method null for \(JSONWSActionMatcher.contextName(of: path))")
    }

    static func noSuchGroup(_ groupId: Int64) -> PortalError {
        PortalError(
            status: 404, type: "com.liferay.portal.kernel.exception.NoSuchGroupException",
            message: "No Group exists with the primary key \(groupId)")
    }

    static func noSuchBookmarksFolder(_ folderId: Int64) -> PortalError {
        PortalError(
            status: 404, type: "com.liferay.bookmarks.exception.NoSuchFolderException",
            message: "No BookmarksFolder exists with the primary key \(folderId)")
    }

    static func noSuchJournalFolder(_ folderId: Int64) -> PortalError {
        PortalError(
            status: 404, type: "com.liferay.journal.exception.NoSuchFolderException",
            message: "No JournalFolder exists with the primary key \(folderId)")
    }

    static func noSuchRecordSet(_ recordSetId: Int64) -> PortalError {
        PortalError(
            status: 404, type: "com.liferay.dynamic.data.lists.exception.NoSuchRecordSetException",
            message: "No DDLRecordSet exists with the primary key \(recordSetId)")
    }

    static func mustHaveViewPermission(userId: Int64, groupId: Int64) -> PortalError {
        PortalError(
            status: 403, type: "com.liferay.portal.kernel.security.auth.PrincipalException",
            message: "User \(userId) must have VIEW permission for com.liferay.portal.kernel.model.Group \(groupId)")
    }

    static let authenticationRequired = PortalError(
        status: 401, type: "java.lang.SecurityException", message: "Authenticated access required")

    /// A command that sets `serviceContext` to null: `JSONWebServiceActionParameters.collectAll`
    /// puts the request's ServiceContext first, the command's own map then overwrites it with
    /// null, and the service (`serviceContext.getUuid()`...) throws. Java's exception has no message.
    /// Source: ``DefinitionSource/serviceContextDefault``.
    static let nullServiceContext = PortalError(status: 500, type: "java.lang.NullPointerException", message: "")

    /// An OAuth 2 token whose scopes' service access policies do not match the method.
    static func accessDenied(_ path: String) -> PortalError {
        PortalError(
            status: 403, type: "com.liferay.portal.kernel.security.access.control.AccessControlException",
            message: "Access denied to \(path) by the access token's scopes")
    }

    static func missingParameter(_ name: String) -> PortalError {
        PortalError(status: 500, type: "java.lang.IllegalArgumentException", message: "Missing value for parameter \(name)")
    }

    static func typeConversion(_ name: String, _ value: JSONValue, to type: String) -> PortalError {
        PortalError(
            status: 500, type: "jodd.typeconverter.TypeConversionException",
            message: "Failed to convert value of parameter \(name) (\(value.typeName)) to \(type)")
    }

    static func classNotFound(_ className: String) -> PortalError {
        PortalError(status: 500, type: "java.lang.ClassNotFoundException", message: className)
    }

    static func invalidRequest(_ message: String) -> PortalError {
        PortalError(status: 500, type: "jodd.json.JsonException", message: message)
    }
}
