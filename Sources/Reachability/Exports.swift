// `import Reachability` is the one import the common case needs: the monitor, the path and its
// parts, rules, the transfer policy and the gate, and what a custom `NetworkStateSource` builds
// (snapshots and their facts). Core's parsers, codecs and state machines (DNS, DHCP leases, HTTP
// fields, the classifier's tables, the gate's hysteresis, the validation schedule) are not
// re-exported: `import ReachabilityCore` names them, for the few who need them.
@_exported public import struct ReachabilityCore.BeaconSignals
@_exported public import struct ReachabilityCore.Classification
@_exported public import struct ReachabilityCore.ConfigurationFile
@_exported public import struct ReachabilityCore.ConfigurationFileError
@_exported public import struct ReachabilityCore.Connectivity
@_exported public import struct ReachabilityCore.ConnectivityValidation
@_exported public import struct ReachabilityCore.DHCPHints
@_exported public import struct ReachabilityCore.DefaultRoute
@_exported public import struct ReachabilityCore.DestinationRoute
@_exported public import struct ReachabilityCore.Evidence
@_exported public import struct ReachabilityCore.Glob
@_exported public import struct ReachabilityCore.Interface
@_exported public import struct ReachabilityCore.InterfaceAddress
@_exported public import struct ReachabilityCore.InterfaceFacts
@_exported public import struct ReachabilityCore.InterfaceReference
@_exported public import struct ReachabilityCore.InterfaceValidation
@_exported public import struct ReachabilityCore.LinkFlags
@_exported public import struct ReachabilityCore.NetworkCostElement
@_exported public import struct ReachabilityCore.NetworkPath
@_exported public import struct ReachabilityCore.NetworkSnapshot
@_exported public import struct ReachabilityCore.OverrideRule
@_exported public import struct ReachabilityCore.OverrideRuleError
@_exported public import struct ReachabilityCore.PathIdentity
@_exported public import struct ReachabilityCore.PathSummary
@_exported public import struct ReachabilityCore.ProbeEndpoint
@_exported public import struct ReachabilityCore.ProbeEndpointError
@_exported public import struct ReachabilityCore.ProbeRecord
@_exported public import struct ReachabilityCore.ProbeSettings
@_exported public import struct ReachabilityCore.ProbeVerdict
@_exported public import struct ReachabilityCore.RouteLookup
@_exported public import struct ReachabilityCore.SelectorError
@_exported public import struct ReachabilityCore.SysfsFacts
@_exported public import struct ReachabilityCore.Transfer
@_exported public import struct ReachabilityCore.TransferNetwork
@_exported public import struct ReachabilityCore.TransferPolicy
@_exported public import struct ReachabilityCore.WifiAssociation
@_exported public import struct ReachabilityCore.WifiFacts
@_exported public import struct ReachabilityCore.WifiMode
@_exported public import enum ReachabilityCore.AddressFamily
@_exported public import enum ReachabilityCore.ByteCount
@_exported public import enum ReachabilityCore.InterfaceType
@_exported public import enum ReachabilityCore.OperationalState
@_exported public import enum ReachabilityCore.RuleSelector
@_exported public import enum ReachabilityCore.TransferDecision
@_exported public import enum ReachabilityCore.TransferWaitReason
@_exported public import enum ReachabilityCore.WifiCost
