import ReachabilityCore
/// The segmented side of a ``DownloadRun``: resuming a partial file fetched in segments, and
/// running the connections of a segmented run.
extension DownloadRun {
    /// The completed ranges of a segmented partial file to resume, or nil when the partial file
    /// (if any) was written from its start. A segmented one that cannot be trusted (another URL,
    /// no strong ETag, ranges outside the resource or the file) is discarded.
    mutating func segmentedPartial() throws(TransferError) -> RangeSet<Int64>? {
        guard let metadata = state.metadata, let stored = metadata.completed else { return nil }
        let fileLength = state.part?.fileLength ?? 0
        if metadata.url == download.url.storageKey, let etag = metadata.etag, EntityTag.isStrong(etag), let size = metadata.size, state.part != nil,
            let completed = SegmentPlan.validated(stored, size: size, fileLength: fileLength)
        {
            return completed
        }
        try discardPartial()
        if fileLength > 0 { countRestart() }
        return nil
    }

    /// Runs the connections of a segmented run over `part`, within what is left of the byte limit.
    mutating func segmented(
        part: PartFile, metadata: PartialDownload, completed: RangeSet<Int64>, handoff: SegmentHandoff?,
        admit: (@Sendable (Int64?) async -> Bool)?
    ) async -> AttemptReport {
        guard let size = metadata.size else {
            return AttemptReport(outcome: .fatal(TransferError(.io, url: shownURL, detail: "a segmented download without a size")))
        }
        let board = SegmentBoard(
            plan: SegmentPlan(size: size, connections: request.connections, completed: completed),
            budget: byteLimit.map { ByteBudget($0 - receivedThisRun) }, retryWaited: state.retryWaited
        )
        let transfer = SegmentedTransfer(
            context: SegmentContext(download: download, client: client, part: part, metadata: metadata, board: board), handoff: handoff, admit: admit,
            base: ProgressBase(receivedThisRun: receivedThisRun, refetched: state.refetched, attempt: state.attempts), progress: progress
        )
        let result = await transfer.run()
        state.retryWaited = result.retryWaited
        return result.report
    }
}
