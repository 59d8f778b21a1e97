import ScreensBus

/// An Asset Publisher's saved selection (``PortletItemSelection``): one call of
/// `ScreensAssetEntryService.getAssetEntries(companyId, groupId, portletItemName, locale,
/// max)`, which is not paged. The answer is the whole list, so its row count is its length
/// and the list ends with it; like Liferay Screens, no later page is asked for.
struct PortletItemWireFormat: WireFormat {
    let spec: JSONWSSourceSpec
    let selection: PortletItemSelection
    let baseURL: String
    /// The pipeline's `convert.locale`; the signature needs a locale, so without one the
    /// portal's default, `en_US`, is sent.
    let locale: String?

    /// A manual selection holds as many entries as were picked, whatever `max` says.
    var requestsPageSize: Bool { false }


    var summary: String { "liferay-jsonws \(redactedURL(baseURL)) \(PortletItemSelection.service) portletItemName" }

    func request(for page: PageRequest) throws(ScreensPipeError) -> HTTPRequest {
        var params = spec.rows.params
        params["locale"] = .string(locale ?? "en_US")
        params["max"] = .int(Int64(selection.max))
        return JSONWSBatch.request([(PortletItemSelection.service, params)], baseURL: baseURL)
    }

    func decode(_ body: JSONValue, response: HTTPResponse, page: PageRequest) throws(ScreensPipeError) -> DecodedPage {
        let results = try JSONWSBatch.results(body, count: 1)
        guard case .array(let rows) = results[0] else {
            throw ScreensPipeError(
                .malformedResponse, "expected an array of asset entries from \(PortletItemSelection.service), found \(results[0].typeName)")
        }
        return DecodedPage(rows: rows, rowCount: rows.count)
    }
}
