internal import CCurl

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// The reader libcurl pulls an ``HTTPUploadBody`` from: the head bytes, then the file read
/// from its descriptor chunk by chunk, then the tail; and the progress it reports.
///
/// Confinement (why `@unchecked Sendable` is sound): created on the sending task, then used
/// only by libcurl's callbacks on the loop thread, and read after the transfer completed.
final class CurlUploadSource: @unchecked Sendable {
    private let body: HTTPUploadBody
    private let descriptor: Int32
    /// Bytes of the whole body handed to libcurl so far.
    private var offset: Int64 = 0
    private var reported: Int64 = -1
    /// Why the read callback aborted the transfer, for its error message.
    private(set) var failure: String?

    /// Opens the file: it must be a regular file of the announced size.
    init(_ body: HTTPUploadBody, requestDescription: String) throws(HTTPError) {
        self.body = body
        // O_NONBLOCK: opening a FIFO must not wait for a writer; the check below refuses it.
        let descriptor = open(body.filePath, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw HTTPError(.other, "cannot read the file to upload \(body.filePath): \(String(cString: strerror(errno)))", request: requestDescription)
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw HTTPError(.other, "the file to upload \(body.filePath) is not a regular file", request: requestDescription)
        }
        guard Int64(status.st_size) == body.fileLength else {
            close(descriptor)
            throw HTTPError(
                .other, "the file to upload \(body.filePath) changed size (\(body.fileLength) bytes when checked, \(status.st_size) now)",
                request: requestDescription)
        }
        // Reads of a regular file never block on O_NONBLOCK; clear it all the same.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Sets the body, its length and the callbacks on `handle`.
    func configure(_ handle: UnsafeMutableRawPointer) -> CURLcode {
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        var code = screens_curl_easy_setopt_long(handle, CURLOPT_POST, 1)
        guard code == CURLE_OK else { return code }
        code = screens_curl_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.length))
        guard code == CURLE_OK else { return code }
        code = screens_curl_easy_setopt_data_callback(handle, CURLOPT_READFUNCTION) { buffer, size, count, userdata in
            let source = Unmanaged<CurlUploadSource>.fromOpaque(userdata!).takeUnretainedValue()
            return source.fill(UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
        }
        guard code == CURLE_OK else { return code }
        code = screens_curl_easy_setopt_pointer(handle, CURLOPT_READDATA, userdata)
        guard code == CURLE_OK else { return code }
        guard body.onProgress != nil else { return CURLE_OK }
        code = screens_curl_easy_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
        guard code == CURLE_OK else { return code }
        code = screens_curl_easy_setopt_xferinfo_callback(handle) { userdata, _, _, _, sent in
            Unmanaged<CurlUploadSource>.fromOpaque(userdata!).takeUnretainedValue().progress(sent: Int64(sent))
            return 0
        }
        guard code == CURLE_OK else { return code }
        return screens_curl_easy_setopt_pointer(handle, CURLOPT_XFERINFODATA, userdata)
    }

    /// libcurl's abort answer to a read callback.
    private static let abort = 0x1000_0000

    /// Fills `buffer` with the next bytes of the body; 0 at its end.
    private func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        let headLength = Int64(body.head.count)
        let fileEnd = headLength + body.fileLength
        if offset < headLength {
            let start = Int(offset)
            let count = min(buffer.count, body.head.count - start)
            body.head.withUnsafeBytes { bytes in base.copyMemory(from: bytes.baseAddress! + start, byteCount: count) }
            offset += Int64(count)
            return count
        }
        if offset < fileEnd {
            let wanted = Int(min(Int64(buffer.count), fileEnd - offset))
            let count = read(descriptor, base, wanted)
            if count < 0 {
                if errno == EINTR { return fill(buffer) }
                failure = "cannot read the file to upload \(body.filePath): \(String(cString: strerror(errno)))"
                return Self.abort
            }
            if count == 0 {
                failure = "the file to upload \(body.filePath) became shorter while it was sent (\(offset - headLength) of \(body.fileLength) bytes)"
                return Self.abort
            }
            offset += Int64(count)
            if offset == fileEnd {
                // One byte more means the file grew: what the portal got is not the file.
                var extra: UInt8 = 0
                if read(descriptor, &extra, 1) > 0 {
                    failure = "the file to upload \(body.filePath) grew while it was sent (more than \(body.fileLength) bytes)"
                    return Self.abort
                }
            }
            return count
        }
        let tailOffset = Int(offset - fileEnd)
        let count = min(buffer.count, body.tail.count - tailOffset)
        guard count > 0 else { return 0 }
        body.tail.withUnsafeBytes { bytes in base.copyMemory(from: bytes.baseAddress! + tailOffset, byteCount: count) }
        offset += Int64(count)
        return count
    }

    /// Reports bytes sent when they moved by a hundredth of the body (at least 64 KiB), and
    /// at the end: a handful of events per upload, never a flood.
    private func progress(sent: Int64) {
        guard let onProgress = body.onProgress, sent > 0, sent > reported else { return }
        let total = body.length
        let step = max(64 << 10, total / 100)
        guard reported < 0 || sent == total || sent - reported >= step else { return }
        reported = sent
        onProgress(sent, total)
    }
}
