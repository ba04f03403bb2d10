/// A budget, or a part of one, that cannot be accepted: which field and why, in one line.
public struct BudgetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field at fault: `name`, `for`, `limit`, `warning`, `cycle`, `reserve`.
    public var field: String
    /// Why, naming the value.
    public var reason: String

    /// An error for `field`.
    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(field): \(reason)" }
}
