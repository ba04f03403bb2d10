// `import ReachabilityTransfers` brings the monitor, the policy and the gate along with the
// downloader: a download is always judged by them.
@_exported public import Reachability
// The HTTP value parsers (ContentRange, EntityTag, HTTPDate, …) live in ReachabilityCore;
// re-exporting it directly makes them visible to every file here, as when they lived here.
@_exported public import ReachabilityCore
// Command jobs (`TransferJob.command`, `CommandRequest`) are described with the process
// control's types (`CommandExecutor.Options`, `CommandTermination`).
@_exported public import ReachabilityProcesses
