import ReachabilityCore
import Testing

@Suite("Text from outside, printed safely")
struct TerminalTextTests {
    @Test(arguments: [
        ("plain text, ünïcode → fine", "plain text, ünïcode → fine"),
        ("\u{1B}]0;owned\u{07}title", "\\x1b]0;owned\\x07title"),
        ("\u{1B}[2J\u{1B}[Hcleared", "\\x1b[2J\\x1b[Hcleared"),
        ("line\nbreak\rreturn", "line\\x0abreak\\x0dreturn"),
        ("c1 \u{9B}31m", "c1 \\x9b31m"),
        ("del\u{7F}", "del\\x7f"),
        ("separator\u{2028}", "separator\\u{2028}"),
    ] as [(String, String)])
    func controlCharactersAreShownNotObeyed(text: String, shown: String) {
        #expect(TerminalText.safe(text) == shown)
    }
}
