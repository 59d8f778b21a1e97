/// The commented starter pipelines `screens-pipe init` writes, one per source type. Each
/// one validates as written and, but for `file`, runs against the bundled sandbox portal
/// until `server` names a real one.
enum StarterPipeline: String, CaseIterable {
    case liferayJSONWS = "liferay-jsonws"
    case liferayHeadless = "liferay-headless"
    case rest
    case file

    /// The JSON Schema the first line points editors (yaml-language-server) at, beside the
    /// pipeline file; `screens-pipe schema` writes it, as the samples point at docs/schemas/.
    static let schemaFile = "pipeline.schema.json"

    /// The pipeline file text for a pipeline called `name`.
    func text(name: String) -> String {
        header(name: name) + body
    }

    private func header(name: String) -> String {
        """
        # yaml-language-server: $schema=\(Self.schemaFile)
        # \(name): a screens-pipe pipeline (\(rawValue) source), written by `screens-pipe init`.
        #   screens-pipe schema > \(Self.schemaFile)   # once: your editor then completes and checks every key
        #   screens-pipe validate \(name).yaml     # check it (file:line:column on errors)
        #   screens-pipe plan \(name).yaml         # the requests it would send, secrets redacted
        #   screens-pipe run \(name).yaml | jq .   # the rows as JSON lines
        # Every key is described in the pipeline file reference (ScreensPipe.docc/PipelineFileReference.md).
        name: \(name)

        """
    }

    private var body: String {
        switch self {
        case .liferayJSONWS:
            """
            source:
              type: liferay-jsonws               # batched POST /api/jsonws/invoke, as Liferay Screens sends
              server: ${LIFERAY_SERVER:-sandbox} # a base URL such as https://portal.example.com, or the bundled sandbox
              auth:
                basic:                           # or: bearer: ${LIFERAY_TOKEN}
                  username: ${LIFERAY_USER:-test@liferay.com}
                  password: ${LIFERAY_PASSWORD:-test}
              # The command that returns a page of rows; start and end are added per page.
              rows: { service: /bookmarks.bookmarksentry/get-entries, params: { groupId: 20143, folderId: 0 } }
              # The row count, asked with page 0 only; without params it counts the rows command's list.
              count: { service: /bookmarks.bookmarksentry/get-entries-count }
              pagination: { first-page-size: 50, page-size: 25, prefetch: 4 }
            convert:
              model: bookmark                    # bookmark | web-content | asset | ddl-record, or fields:
            cache:
              policy: remote-first               # remote-only | cache-only | remote-first | cache-first | cache-and-remote
            # filter:
            #   where: 'url contains "liferay"'
            #   limit: 100
            sink:
              type: stdout                       # or: path: bookmarks.jsonl
              format: items                      # items | events | table | csv | tsv

            """
        case .liferayHeadless:
            """
            source:
              type: liferay-headless             # headless delivery (Liferay 7.1+), 1-based pages
              server: ${LIFERAY_SERVER:-sandbox}
              auth:
                basic:
                  username: ${LIFERAY_USER:-test@liferay.com}
                  password: ${LIFERAY_PASSWORD:-test}
              path: /o/headless-delivery/v1.0/sites/20143/structured-contents
              # query: { sort: "dateModified:desc" }   # extra query parameters; page and pageSize are set per page
              pagination: { page-size: 25 }      # headless takes one page size for every page
            convert:
              locale: en_US                      # sent as Accept-Language; localized values resolve to it
              fields:                            # output name: path in the item
                id: id
                title: title
                modified: dateModified
            sink:
              format: items

            """
        case .rest:
            """
            source:
              type: rest                         # any paged JSON API
              server: ${REST_SERVER:-sandbox}
              url: /rest/bookmarks/cursor        # absolute, or relative to server
              records: results                   # path to the rows array in the body
              # offset | page | cursor | next-link | link-header, each with its parameter names
              paginate: { style: cursor, cursor-param: cursor, cursor-path: next_cursor, size-param: limit }
              pagination: { first-page-size: 25, page-size: 25 }
              # headers: { X-Api-Key: "${API_KEY}" }   # secret-named headers are typed secrets
            convert:
              fields:
                id: entryId
                name: name
                url: url
            sink:
              format: items

            """
        case .file:
            """
            source:
              type: file                         # a local JSON array or JSON-lines file, paged like a list
              path: rows.json                    # relative to this pipeline file
              # records: data.items              # when the file holds an object
              pagination: { first-page-size: 50, page-size: 50 }
            # convert:
            #   fields: { id: id, title: { from: title, localized: true } }
            sink:
              format: items

            """
        }
    }
}
