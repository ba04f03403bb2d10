// `import Reachability` is the one import the common case needs: the monitor, the path and its
// parts, rules, the transfer policy and the gate. The pure values live in ReachabilityCore
// (importable alone, with no I/O), re-exported here as swift-nio's `NIO` re-exports `NIOCore`.
@_exported public import ReachabilityCore
