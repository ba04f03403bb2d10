import Foundation
import Testing

@testable import ReachabilityTransfers

private let mebibyte: Int64 = 1 << 20

@Suite("Segment plan (pure)")
struct SegmentPlanTests {
    @Test("segments are handed out front first, initial size until a rate is known, then by rate")
    func frontFirst() {
        var plan = SegmentPlan(size: 1024 * mebibyte, connections: 4, completed: RangeSet())
        #expect(plan.claim(rate: nil) == 0..<(4 * mebibyte))
        #expect(plan.claim(rate: nil) == (4 * mebibyte)..<(8 * mebibyte))
        // 10 MiB/s for two seconds: 20 MiB.
        #expect(plan.claim(rate: Double(10 * mebibyte)) == (8 * mebibyte)..<(28 * mebibyte))
        // Never more than the maximum, however fast.
        let fast = plan.claim(rate: 1e12)
        #expect(fast?.count == Int(SegmentPlan.maximumLength))
    }

    @Test("near the end, what is left is shared so the connections finish together; no slivers")
    func balancedTail() {
        var plan = SegmentPlan(size: 10 * mebibyte, connections: 4, completed: RangeSet())
        // 10 MiB among 4: 2.5 MiB each (rounded up).
        let first = plan.claim(rate: nil)
        #expect(first?.count == Int((10 * mebibyte + 3) / 4))
        // No segment under the minimum, and none leaves less than the minimum behind it.
        var small = SegmentPlan(size: 5 * mebibyte / 2, connections: 4, completed: RangeSet())
        #expect(small.claim(rate: nil) == 0..<mebibyte)
        #expect(small.claim(rate: nil) == mebibyte..<(5 * mebibyte / 2))
        #expect(small.claim(rate: nil) == nil)
    }

    @Test("completed bytes are never handed out; released bytes are handed out again")
    func gaps() {
        var completed = RangeSet<Int64>()
        completed.insert(contentsOf: 0..<(2 * mebibyte))
        completed.insert(contentsOf: (5 * mebibyte)..<(6 * mebibyte))
        var plan = SegmentPlan(size: 8 * mebibyte, connections: 2, completed: completed)
        #expect(plan.completedBytes == 3 * mebibyte)
        #expect(plan.contiguousPrefix == 2 * mebibyte)
        let first = plan.claim(rate: Double(100 * mebibyte))
        #expect(first == (2 * mebibyte)..<(5 * mebibyte))
        // The 2 MiB left shared between the two connections.
        #expect(plan.claim(rate: Double(100 * mebibyte)) == (6 * mebibyte)..<(7 * mebibyte))
        #expect(plan.claim(rate: nil) == (7 * mebibyte)..<(8 * mebibyte))
        #expect(plan.claim(rate: nil) == nil)
        // Half of the first written, then its connection stopped: the rest is handed out again.
        plan.complete((2 * mebibyte)..<(3 * mebibyte + 512 << 10))
        plan.release(first!)
        #expect(plan.claim(rate: nil) == (3 * mebibyte + 512 << 10)..<(5 * mebibyte))
        #expect(plan.contiguousPrefix == 3 * mebibyte + 512 << 10)
        plan.complete((3 * mebibyte + 512 << 10)..<(5 * mebibyte))
        plan.complete((6 * mebibyte)..<(8 * mebibyte))
        #expect(plan.isComplete)
        #expect(plan.storedRanges == [0..<(8 * mebibyte)])
    }

    @Test("stored ranges outside the resource or the file are not trusted")
    func validation() {
        #expect(SegmentPlan.validated([0..<10, 20..<30], size: 100, fileLength: 30) != nil)
        #expect(SegmentPlan.validated([0..<10, 20..<30], size: 100, fileLength: 29) == nil)
        #expect(SegmentPlan.validated([90..<101], size: 100, fileLength: 200) == nil)
        #expect(SegmentPlan.validated([], size: 100, fileLength: 0)?.isEmpty == true)
    }

    @Test("the sidecar stores completed ranges as pairs; an older sidecar has none")
    func sidecarFormat() throws {
        let metadata = PartialDownload(url: "http://h/x", size: 100, etag: "\"e\"", lastModified: nil, bytesWritten: 30, completed: [0..<10, 20..<40])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(metadata), as: UTF8.self)
        #expect(text.contains("\"completed\":[[0,10],[20,40]]"))
        #expect(try JSONDecoder().decode(PartialDownload.self, from: Data(text.utf8)) == metadata)
        let older = #"{"url":"http://h/x","size":100,"etag":"\"e\"","bytesWritten":30}"#
        let decoded = try JSONDecoder().decode(PartialDownload.self, from: Data(older.utf8))
        #expect(decoded.completed == nil)
        // A range ending before it starts makes the whole sidecar unreadable (so it is discarded).
        let broken = #"{"url":"http://h/x","size":100,"bytesWritten":0,"completed":[[10,5]]}"#
        #expect(throws: (any Error).self) { try JSONDecoder().decode(PartialDownload.self, from: Data(broken.utf8)) }
    }

    @Test("the byte budget never grants more than it holds, whoever asks")
    func budget() async {
        let budget = ByteBudget(1_000_003)
        let granted = await withTaskGroup(of: Int64.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var total: Int64 = 0
                    while true {
                        let got = budget.take(4096)
                        if got == 0 { return total }
                        total += got
                    }
                }
            }
            return await group.reduce(0, +)
        }
        #expect(granted == 1_000_003)
    }
}
