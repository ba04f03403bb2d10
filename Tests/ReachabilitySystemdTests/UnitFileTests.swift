import Foundation
import ReachabilityTestKit
import Testing

/// The units in dist/systemd pass `systemd-analyze verify` with no complaint about them.
@Suite(.enabled(if: SystemdAnalyze.isRequired, "systemd-analyze is not installed (CI=true requires it)"))
struct UnitFileTests {
    @Test func systemUnitsVerify() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("units/reach.service", SystemdAnalyze.standInCopy(of: "system/reach.service"))
        try directory.write("units/reach-wait-online@.service", SystemdAnalyze.standInCopy(of: "system/reach-wait-online@.service"))
        // A template is verified through an instance, whose %i the ExecStart line uses.
        let instance = "reach-wait-online@unmetered.service"
        try FileManager.default.createSymbolicLink(
            atPath: directory.path + "/units/" + instance, withDestinationPath: "reach-wait-online@.service")

        let units = ["reach.service", instance]
        // --man=no: the Documentation= pages come with the package (the VM's systemd suite verifies
        // the installed units with them).
        let result = try SystemdAnalyze.run(["verify", "--man=no"] + units.map { directory.path + "/units/" + $0 }, scratch: directory.path)
        #expect(result.status == 0, "\(result.errors)\(result.output)")
        #expect(result.complaints(about: units + ["reach-wait-online@"], in: directory.path) == [], "\(result.errors)")
    }

    /// dist/recipes/apt-daily's drop-in, on Debian's own apt-daily.service, beside the unit it
    /// orders after: verify finds both and no complaint.
    @Test(.enabled(
        if: ProcessInfo.processInfo.environment["CI"] == "true" || FileManager.default.fileExists(atPath: "/lib/systemd/system/apt-daily.service"),
        "apt's units are not installed (CI=true requires them)"))
    func theAptDailyDropInVerifies() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("units/apt-daily.service", String(contentsOfFile: "/lib/systemd/system/apt-daily.service", encoding: .utf8))
        let recipe = SystemdAnalyze.unitDirectory + "/../recipes/apt-daily/reach-unmetered.conf"
        try directory.write("units/apt-daily.service.d/reach-unmetered.conf", String(contentsOfFile: recipe, encoding: .utf8))
        try directory.write("units/reach-wait-online@.service", SystemdAnalyze.standInCopy(of: "system/reach-wait-online@.service"))
        let result = try SystemdAnalyze.run(
            ["verify", "--man=no", directory.path + "/units/apt-daily.service"], environment: ["SYSTEMD_UNIT_PATH": directory.path + "/units:"],
            scratch: directory.path)
        #expect(result.status == 0, "\(result.errors)\(result.output)")
        #expect(result.complaints(about: ["reach-unmetered.conf", "reach-wait-online@"], in: directory.path) == [], "\(result.errors)")
    }

    /// `--user` needs `XDG_RUNTIME_DIR` (the user manager's runtime directory), which a root
    /// shell in a container lacks; a private one is enough for verify.
    @Test func userUnitVerifies() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("units/reach.service", SystemdAnalyze.standInCopy(of: "user/reach.service"))
        let runtime = directory.path + "/runtime"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])

        let result = try SystemdAnalyze.run(
            ["--user", "verify", "--man=no", directory.path + "/units/reach.service"], environment: ["XDG_RUNTIME_DIR": runtime],
            scratch: directory.path)
        #expect(result.status == 0, "\(result.errors)\(result.output)")
        #expect(result.complaints(about: ["reach.service"], in: directory.path) == [], "\(result.errors)")
    }

    /// The check itself: a misspelt directive is reported (exit 0, a warning on stderr).
    @Test func anUnknownDirectiveIsAComplaint() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let unit = try SystemdAnalyze.standInCopy(of: "system/reach.service").replacingOccurrences(of: "WatchdogSec=", with: "WatchDogSec=")
        try directory.write("units/reach.service", unit)

        let result = try SystemdAnalyze.run(["verify", directory.path + "/units/reach.service"], scratch: directory.path)
        #expect(result.complaints(about: ["reach.service"], in: directory.path).contains { $0.contains("WatchDogSec") })
    }
}
