import Foundation
import Glibc
@testable import ReachabilityDaemon
import ReachabilityTestKit
import Testing

@Suite struct StateDirectoryLockTests {
    @Test func aSecondHolderIsRefusedNamingTheFirst() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try StateDirectoryLock.acquire(in: directory.path)
        // flock conflicts between two open descriptions even inside one process.
        let refusal = #expect(throws: QueueError.self) { try StateDirectoryLock.acquire(in: directory.path) }
        #expect(refusal?.token == "conflict")
        #expect(refusal?.message.contains("pid \(getpid())") == true, "\(refusal?.message ?? "")")
        #expect(try String(contentsOfFile: first.path, encoding: .utf8) == "\(getpid())\n")
        first.unlock()
        let again = try StateDirectoryLock.acquire(in: directory.path)
        again.unlock()
    }

    @Test func aPlantedSymlinkOrDirectoryIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let target = directory.path + "/elsewhere"
        FileManager.default.createFile(atPath: target, contents: Data("keep".utf8))
        #expect(symlink(target, directory.path + "/daemon.lock") == 0)
        let symlinked = #expect(throws: QueueError.self) { try StateDirectoryLock.acquire(in: directory.path) }
        #expect(symlinked?.message.contains("it is a symlink") == true)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep")
        #expect(unlink(directory.path + "/daemon.lock") == 0)
        #expect(mkdir(directory.path + "/daemon.lock", 0o700) == 0)
        #expect(throws: QueueError.self) { try StateDirectoryLock.acquire(in: directory.path) }
    }
}
