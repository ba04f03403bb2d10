import Testing

@testable import ReachabilityDaemon

/// What a job needs (an upload's file, a command's working directory) is refused when it does not
/// exist, with or without the client's view (the packaged unit's daemon may not look into a root
/// shell's /proc/PID/root); the message says which.
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
        if refused { #expect(message?.contains("does not exist for the daemon (if it exists for you, the daemon sees another") == true) }
    }

    /// With the client's view: (path, mustExist, message or nil). The same root on both sides,
    /// so a refusal is only ever for what neither sees.
    static let sameRoot: [(String, Bool, String?)] = [
        ("/proc", true, nil),
        ("/nonexistent-\(UInt64.random(in: 0...UInt64.max))", true, "does not exist"),
        ("/nonexistent-\(UInt64.random(in: 0...UInt64.max))", false, nil),
    ]

    @Test(arguments: sameRoot)
    func withTheClientsViewWhatMustExistIsRefusedPlainly(path: String, mustExist: Bool, expected: String?) {
        var message: String?
        do { try ClientFileView(root: "/proc/self/root").check(path, field: "file", mustExist: mustExist) } catch { message = error.message }
        #expect(message == expected.map { "file: '\(path)' \($0)" })
    }
}
