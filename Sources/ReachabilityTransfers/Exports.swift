// `import ReachabilityTransfers` brings the monitor, the policy and the gate along with the
// downloader: a download is always judged by them.
@_exported public import Reachability
// Command jobs (`TransferJob.command`, `CommandRequest`) are described with the process
// control's types (`CommandExecutor.Options`, `CommandTermination`).
@_exported public import ReachabilityProcesses
