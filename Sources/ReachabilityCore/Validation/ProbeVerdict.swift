/// What one probe's answer means, as ``ProbeResponseClassifier`` reads it: the part of a
/// ``ProbeRecord`` that depends on the response alone.
public struct ProbeVerdict: Sendable, Hashable {
    /// ``ProbeRecord/Outcome/success``, ``ProbeRecord/Outcome/portal`` or
    /// ``ProbeRecord/Outcome/failure``.
    public var outcome: ProbeRecord.Outcome
    /// The portal's login page, only with ``ProbeRecord/Outcome/portal`` and only when the answer
    /// named one: always `http://` or `https://`, at most 2,048 bytes of visible ASCII, so it can
    /// be printed on a terminal as it is.
    public var portalURL: String?
    /// The answer in a few words (`204 No Content`, `302 Found to http://10.0.0.1/login`), in
    /// printable ASCII only.
    public var detail: String

    /// A verdict given field by field.
    public init(outcome: ProbeRecord.Outcome, portalURL: String? = nil, detail: String) {
        self.outcome = outcome
        self.portalURL = portalURL
        self.detail = detail
    }
}
