/// `Content-Length` values (RFC 9110 §8.6).
public enum ContentLength {
    /// The length a `Content-Length` value gives: `1*DIGIT`, blanks around it allowed.
    ///
    /// A list of identical values (`5, 5`, what a proxy that merged two fields sends) is that
    /// value, as RFC 9110 §8.6 allows; differing values, signs, anything but ASCII digits, an
    /// empty value or one above `Int64.max` give nil, never a trap.
    public static func parse(_ value: String) -> Int64? {
        var length: Int64?
        for element in value.split(separator: ",", omittingEmptySubsequences: false) {
            guard let number = DecimalDigits.int64(element.trimmingBlanks()) else { return nil }
            if let length, length != number { return nil }
            length = number
        }
        return length
    }
}
