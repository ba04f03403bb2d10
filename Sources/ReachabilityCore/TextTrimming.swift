/// The one trimming helper of the package (configuration lines, lease files, sysfs values, HTTP
/// headers): spaces, tabs, carriage returns and newlines at either end. Foundation's
/// `trimmingCharacters(in:)` would pull Foundation into modules that avoid it.
extension StringProtocol where SubSequence == Substring {
    package func trimmingBlanks() -> Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
