@testable import reach_daemon
import Testing

/// `reach budget show`'s used share, written without Foundation's `String(format:)` (ICU): as
/// `%.1f` would, and without trapping on any number a daemon's answer can make.
@Suite("reach budget show: the share used")
struct BudgetFormatTests {
    @Test(arguments: [
        (0.0, "0.0"), (42.0, "42.0"), (12.34, "12.3"), (99.96, "100.0"), (0.04, "0.0"),
        (-0.5, "-0.5"), (9.2e20, "1000000000000000.0"), (Double.infinity, "∞"), (-Double.infinity, "-∞"), (Double.nan, "?"),
    ])
    func theShareHasOneDecimal(percent: Double, text: String) {
        #expect(BudgetFormat.oneDecimal(percent) == text)
    }
}
