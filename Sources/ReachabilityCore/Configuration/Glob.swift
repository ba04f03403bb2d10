/// A shell-style pattern over interface names: `*`, `?`, `[abc]`, `[a-z]`, `[!x]`.
public struct Glob: Sendable, Hashable, CustomStringConvertible {
    /// The pattern's text, as written.
    public let pattern: String
    private let characters: [Character]

    /// Fails when a bracket expression is not closed.
    public init?(_ pattern: String) {
        self.pattern = pattern
        self.characters = Array(pattern)
        var index = 0
        while index < characters.count {
            if characters[index] == "[" {
                guard Self.bracketEnd(characters, from: index) != nil else { return nil }
            }
            index += 1
        }
    }

    public var description: String { pattern }

    /// Whether the whole of `name` matches the pattern (not just a part of it): `wlan*` matches
    /// `wlan0` but not `mywlan0`.
    public func matches(_ name: String) -> Bool {
        Self.match(characters[...], Array(name)[...])
    }

    private static func match(_ pattern: ArraySlice<Character>, _ text: ArraySlice<Character>) -> Bool {
        var p = pattern.startIndex
        var t = text.startIndex
        // Position to return to after a `*` failed to match further (classic backtracking).
        var starPattern: Int?
        var starText = t
        while t < text.endIndex {
            if p < pattern.endIndex {
                switch pattern[p] {
                case "*":
                    starPattern = p
                    starText = t
                    p += 1
                    continue
                case "?":
                    p += 1
                    t += 1
                    continue
                case "[":
                    let end = bracketEnd(Array(pattern), from: p - pattern.startIndex).map { $0 + pattern.startIndex }!
                    if bracketMatches(Array(pattern[(p + 1)..<end]), text[t]) {
                        p = end + 1
                        t += 1
                        continue
                    }
                default:
                    if pattern[p] == text[t] {
                        p += 1
                        t += 1
                        continue
                    }
                }
            }
            guard let star = starPattern else { return false }
            p = star + 1
            starText += 1
            t = starText
        }
        while p < pattern.endIndex, pattern[p] == "*" { p += 1 }
        return p == pattern.endIndex
    }

    /// Index of the `]` closing the bracket expression opening at `start`.
    private static func bracketEnd(_ pattern: [Character], from start: Int) -> Int? {
        var index = start + 1
        if index < pattern.count, pattern[index] == "!" || pattern[index] == "^" { index += 1 }
        if index < pattern.count, pattern[index] == "]" { index += 1 }
        while index < pattern.count {
            if pattern[index] == "]" { return index }
            index += 1
        }
        return nil
    }

    private static func bracketMatches(_ body: [Character], _ character: Character) -> Bool {
        var items = body[...]
        var negated = false
        if let first = items.first, first == "!" || first == "^" {
            negated = true
            items = items.dropFirst()
        }
        var matched = false
        var index = items.startIndex
        while index < items.endIndex {
            let low = items[index]
            if index + 2 < items.endIndex, items[index + 1] == "-" {
                let high = items[index + 2]
                if low <= character && character <= high { matched = true }
                index += 3
            } else {
                if low == character { matched = true }
                index += 1
            }
        }
        return matched != negated
    }
}
