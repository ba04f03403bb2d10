/// A rendered exposition, read back for checks: the families' `# HELP` and `# TYPE` lines and
/// every sample by its series as written (`name{label="value",…}`). The registry writes
/// families and series in no fixed order, so tests compare these maps rather than text.
struct Exposition {
    private(set) var help: [String: String] = [:]
    private(set) var types: [String: String] = [:]
    private(set) var samples: [String: Double] = [:]

    init(_ text: String) {
        for line in text.split(separator: "\n").map(String.init) {
            if let rest = line.dropPrefix("# HELP ") {
                let (name, text) = rest.splitFirst(" ")
                help[name] = text
            } else if let rest = line.dropPrefix("# TYPE ") {
                let (name, type) = rest.splitFirst(" ")
                types[name] = type
            } else if let space = line.lastIndex(of: " ") {
                // The value follows the last space: label values may hold spaces, values not.
                samples[String(line[..<space])] = Double(line[line.index(after: space)...])
            }
        }
    }

    /// The samples of the family `name`.
    func family(_ name: String) -> [String: Double] {
        samples.filter { $0.key == name || $0.key.hasPrefix(name + "{") }
    }

    /// The family names, from their `# TYPE` lines.
    var families: Set<String> { Set(types.keys) }
}

extension String {
    fileprivate func dropPrefix(_ prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }

    fileprivate func splitFirst(_ separator: Character) -> (String, String) {
        guard let index = firstIndex(of: separator) else { return (self, "") }
        return (String(self[..<index]), String(self[index...].dropFirst()))
    }
}
