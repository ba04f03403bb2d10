import ReachabilitySystemd
import Testing

/// `STATUS=` text: one line, at most 200 bytes, never a split character.
@Suite struct StatusLineTests {
    @Test func plainTextIsKept() {
        #expect(SystemdNotifier.statusLine("Downloading 3 of 5 (wired, unmetered)") == "Downloading 3 of 5 (wired, unmetered)")
        #expect(SystemdNotifier.statusLine("") == "")
    }

    @Test func controlCharactersBecomeSpaces() {
        #expect(SystemdNotifier.statusLine("a\nb\r\nc\td\u{1B}[31me\u{7F}f\u{0}g\u{85}h") == "a b  c d [31me f g h")
    }

    @Test func longTextIsCutAt200Bytes() {
        #expect(SystemdNotifier.statusLine(String(repeating: "x", count: 500)) == String(repeating: "x", count: 200))
    }

    @Test func cuttingNeverSplitsACharacter() {
        // "é" is 2 bytes and "€" 3: 199 bytes of "x" leave room for neither.
        for wide in ["é", "€", "🙂"] {
            let line = SystemdNotifier.statusLine(String(repeating: "x", count: 199) + wide + "tail")
            #expect(line == String(repeating: "x", count: 199))
        }
        let euros = SystemdNotifier.statusLine(String(repeating: "€", count: 100))
        #expect(euros == String(repeating: "€", count: 66))
        #expect(euros.utf8.count == 198)
    }
}
