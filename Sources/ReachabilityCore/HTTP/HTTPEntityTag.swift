/// ETag helpers (RFC 9110 §8.8.3).
public enum EntityTag {
    /// Whether `tag` is a strong entity tag: quoted and without the `W/` prefix.
    public static func isStrong(_ tag: String) -> Bool {
        let text = tag.trimmingBlanks()
        return !text.hasPrefix("W/") && text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\"")
    }
}
