import ReachabilityCore
import AsyncHTTPClient
import NIOHTTP1

/// The opening request of a segmented download, answered with a range of a larger resource:
/// its body (still unread) becomes the first segment, and the rest is split among connections.
struct SegmentHandoff: Sendable {
    /// The response's body, not read yet.
    let body: HTTPClientResponse.Body
    /// The bytes it carries.
    let segment: Range<Int64>
}

extension DownloadAttempt {
    /// Decides, for the `206` answer to an opening request (``opening``), whether the rest of
    /// the resource is fetched in segments: when the answer tells the size and a strong ETag and
    /// stops short of the end. Then the metadata is rewritten in the segmented form (the partial file's bytes so far
    /// as the one completed range) before any body byte is written, and the attempt ends with
    /// ``AttemptOutcome/split(_:)``. Nil when the body is simply streamed (it reaches the end).
    func splitOff(
        _ response: HTTPClientResponse, part: PartFile, validators: ResourceValidators, report: AttemptReport
    ) -> AttemptReport? {
        var report = report
        // Without a size the end of this body would look like the end of the resource; without a
        // strong ETag nothing proves that segments fetched over several connections come from one
        // version of the file (a weak ETag or a Last-Modified date may stay the same across an
        // edit within a second): one connection, then.
        guard let size = validators.size, let etag = validators.etag, EntityTag.isStrong(etag) else {
            report.outcome = .openingRefused
            return report
        }
        let offset = part.length
        guard let header = response.headers.first(name: "content-range"), let range = ContentRange(header)?.range,
            range.lowerBound == offset
        else { return nil }
        let end = range.upperBound + 1
        guard end < size else { return nil }
        let metadata = PartialDownload(
            url: download.url.storageKey, size: size, etag: validators.etag, lastModified: validators.lastModified,
            bytesWritten: offset, completed: offset > 0 ? [0..<offset] : []
        )
        do throws(FileError) {
            try MetadataFile.write(metadata, name: download.paths.metadataName, in: download.directory)
        } catch {
            report.outcome = .fatal(error.transferError(url: download.url.redacted))
            return report
        }
        report.metadata = metadata
        report.outcome = .split(SegmentHandoff(body: response.body, segment: offset..<end))
        return report
    }
}
