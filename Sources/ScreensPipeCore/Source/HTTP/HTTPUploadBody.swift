/// A request body streamed from a file, between bytes sent before it (a multipart form's
/// fields and the file part's headers) and after it (the closing boundary).
///
/// libcurl reads the file in chunks as it sends them (``CurlUploadSource``), so a file of
/// any size costs a few buffers of memory. The file must still be a regular file of
/// `fileLength` bytes when it is sent: one that is shorter, longer or replaced by something
/// else fails the request rather than send other bytes than the row named.
package struct HTTPUploadBody: Sendable {
    /// The bytes before the file's.
    package var head: [UInt8]
    /// The file sent, opened when the request is sent.
    package var filePath: String
    /// The file's size when the row was checked.
    package var fileLength: Int64
    /// The bytes after the file's.
    package var tail: [UInt8]
    /// Called on the I/O thread as bytes go out: bytes sent so far and the body's length,
    /// the first never decreasing; it must return at once (hand the numbers over, never wait).
    package var onProgress: (@Sendable (_ sent: Int64, _ total: Int64) -> Void)?

    package init(head: [UInt8], filePath: String, fileLength: Int64, tail: [UInt8], onProgress: (@Sendable (Int64, Int64) -> Void)? = nil) {
        self.head = head
        self.filePath = filePath
        self.fileLength = fileLength
        self.tail = tail
        self.onProgress = onProgress
    }

    /// The whole body's length, as `Content-Length` announces it.
    package var length: Int64 { Int64(head.count) + fileLength + Int64(tail.count) }
}
