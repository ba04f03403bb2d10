import Testing

@testable import ReachabilityDaemon

/// Without the client's view (the packaged unit's daemon may not look into a root shell's
/// /proc/PID/root), what the daemon cannot see at all is still refused where the job needs it.
struct ClientFileViewTests {
    /// (path, mustExist, refused)
    static let blind: [(String, Bool, Bool)] = [
        ("/", true, false),
        ("/nonexistent-\(UInt64.random(in: 0...UInt64.max))", true, true),
        ("/nonexistent-\(UInt64.random(in: 0...UInt64.max))", false, false),
    ]

    @Test(arguments: blind)
    func withoutTheClientsViewOnlyWhatMustExistIsChecked(path: String, mustExist: Bool, refused: Bool) {
        let view = ClientFileView(root: nil)
        var message: String?
        do { try view.check(path, field: "workingDirectory", mustExist: mustExist) } catch { message = error.message }
        #expect((message != nil) == refused)
        if refused { #expect(message?.contains("does not exist for the daemon") == true) }
    }

    /// The same root on both sides: the same file, never refused.
    @Test func theDaemonsOwnRootIsTheSameView() throws {
        try ClientFileView(root: "/proc/self/root").check("/proc", field: "workingDirectory", mustExist: true)
    }
}
