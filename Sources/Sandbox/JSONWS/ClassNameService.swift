import ScreensJSON

/// The portal's class-name service, which turns a class name into the id an
/// `AssetEntryQuery`'s `classNameIds` takes.
///
/// Signatures (parameter `value` in both):
/// - `ClassNameService.fetchClassName(String value)`, `/classname/fetch-class-name`, in every
///   version (liferay/liferay-central-test-2, portal-kernel/src/com/liferay/portal/kernel/service/ClassNameService.java,
///   commit 62af6baa90917dd4f6f74c6e066c5877d7658484): answers the `ClassName` model,
///   `{"classNameId", "mvccVersion", "value"}`. An unknown name answers the portal's null
///   class name, whose id is 0 (ClassNameLocalServiceImpl.fetchClassName), not an error.
/// - `fetchClassNameId(String value)`, `/classname/fetch-class-name-id`, in 6.2 only
///   (liferay/liferay-mobile-sdk, gen/android/src/com/liferay/mobile/android/v62/classname/ClassNameService.java,
///   commit caeb92c3fe08ed678a4bfd480f9871fbcfa84077): answers the id, 0 when unknown.
enum ClassNameService {
    static let actions: [String: JSONWSServices.Action] = [
        "/classname/fetch-class-name": { portal, params, _ in
            let value = try requiredValue(params)
            let id = classNameId(of: value, in: portal)
            return ["classNameId": .int(id), "mvccVersion": 0, "value": .string(id == 0 ? "" : value)]
        },
        "/classname/fetch-class-name-id": { portal, params, _ in
            .int(classNameId(of: try requiredValue(params), in: portal))
        },
    ]

    /// The id of `value`, or 0 (the portal's null class name) when it has none.
    static func classNameId(of value: String, in portal: Portal) -> Int64 {
        portal.data.classNames.first { $0.value == value }?.key ?? 0
    }

    private static func requiredValue(_ params: ServiceParameters) throws -> String {
        guard let value = try params.string("value") else { throw PortalError.missingParameter("value") }
        return value
    }
}
