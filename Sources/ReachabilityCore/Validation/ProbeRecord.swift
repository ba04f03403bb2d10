/// What one probe asked and what it learned: the evidence behind a ``Connectivity``, printed by
/// `--explain` and carried in the JSON (`probes` of an interface).
public struct ProbeRecord: Sendable, Hashable, Codable {
    /// Which kind of probe it was.
    public struct Kind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A plain-HTTP probe URL (a portal can intercept it).
        public static let http = Kind(rawValue: "http")
        /// An HTTPS probe URL (a portal cannot answer it without a certificate error).
        public static let https = Kind(rawValue: "https")
        /// The RFC 8908 captive-portal API named by DHCP option 114 or RA option 37.
        public static let captivePortalAPI = Kind(rawValue: "capport")
        public var description: String { rawValue }
    }

    /// What the answer means.
    public struct Outcome: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The expected answer: the Internet was reached.
        public static let success = Outcome(rawValue: "success")
        /// A captive portal answered (redirect, 511, a page, or the API says captive).
        public static let portal = Outcome(rawValue: "portal")
        /// No usable answer: DNS failure, refused, timed out, TLS failure, nonsense.
        public static let failure = Outcome(rawValue: "failure")
        /// The RFC 8908 API says the client is not (or no longer) captive.
        public static let notCaptive = Outcome(rawValue: "notCaptive")
        public var description: String { rawValue }
    }

    /// The URL probed, without userinfo.
    public var url: String
    /// The kind of probe.
    public var kind: Kind
    /// The interface the probe was sent out of (`SO_BINDTODEVICE`).
    public var interface: String
    /// The address connected to, when the name resolved (`10.9.0.1:80`).
    public var address: String?
    /// When the probe started, in milliseconds since the Unix epoch (wall clock).
    public var startedAt: Int64
    /// How long it took, in milliseconds.
    public var milliseconds: Int64
    /// What the answer means.
    public var outcome: Outcome
    /// The portal's login page, when the answer named one.
    public var portalURL: String?
    /// The answer in a few words: `204 No Content`, `302 Found to http://portal/login`,
    /// `connection refused`, `timed out after 3.0 s (waiting for the answer)`, `DNS: name not found (NXDOMAIN)`.
    public var detail: String

    /// A record given field by field.
    public init(
        url: String, kind: Kind, interface: String, address: String? = nil, startedAt: Int64, milliseconds: Int64,
        outcome: Outcome, portalURL: String? = nil, detail: String
    ) {
        self.url = url
        self.kind = kind
        self.interface = interface
        self.address = address
        self.startedAt = startedAt
        self.milliseconds = milliseconds
        self.outcome = outcome
        self.portalURL = portalURL
        self.detail = detail
    }
}

/// One interface's validation: its connectivity, the portal's URL, and the probes that decided.
public struct InterfaceValidation: Sendable, Hashable, Codable {
    /// What the probes found.
    public var connectivity: Connectivity
    /// The captive portal's login page, when ``connectivity`` is ``Connectivity/portal`` and
    /// an answer named it.
    public var portalURL: String?
    /// The latest round of probes, in the order they were configured.
    public var probes: [ProbeRecord]

    /// A validation given field by field.
    public init(connectivity: Connectivity, portalURL: String? = nil, probes: [ProbeRecord] = []) {
        self.connectivity = connectivity
        self.portalURL = portalURL
        self.probes = probes
    }
}
