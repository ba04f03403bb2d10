import GioReachParsing

/// libFuzzer entry point for the GIO module's parsers (C, json-glib): the input is one line of
/// `/v1/path/events` and, the same bytes, a `/v1/route` answer. Whatever the daemon (or an
/// impostor on its socket) sends, neither may crash, and a parsed path keeps GLib's invariants.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGioPathLine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    data.withMemoryRebound(to: CChar.self, capacity: size) { text in
        var state = ReachPathState()
        if reach_path_line_parse(text, gsize(size), &state) != 0 {
            precondition(state.available == 0 || state.available == 1, "available is a gboolean")
            precondition(state.available != 0 || state.connectivity == G_NETWORK_CONNECTIVITY_LOCAL, "no network: local connectivity")
        }
        let reachable = reach_route_line_parse(text, gsize(size))
        precondition((-1...1).contains(reachable), "a route answer is -1, 0 or 1")
    }
    return 0
}
