/// ISC dhclient lease files (`dhclient.leases`, `dhclient.IFACE.leases`,
/// `dhclient-IFACE.leases`, and NetworkManager's `dhclient-UUID-IFACE.lease`).
///
/// Format followed: what ISC DHCP 4.x (4.1 through 4.4, the last releases) writes in
/// `write_client_lease()`, one block per lease, appended as leases are obtained and renewed,
/// and rewritten (compacted) from time to time:
///
/// ```
/// default-duid "\000\001\000\001…";
/// lease {
///   interface "wlan0";
///   fixed-address 192.168.43.37;
///   option subnet-mask 255.255.255.0;
///   option routers 192.168.43.1;
///   option vendor-encapsulated-options "ANDROID_METERED";
///   option dhcp-server-identifier 192.168.43.1;
///   renew 2 2024/01/16 10:20:30;
///   expire 2 2024/01/16 10:50:00;
/// }
/// lease6 { … }
/// ```
///
/// Option 43 has format `E.` in dhclient's option table; `pretty_print_option()` prints such a
/// value as a quoted string when every byte is printable ASCII (a trailing NUL is tolerated),
/// and otherwise as colon-separated hex with `%x`, so bytes below 0x10 have a single digit
/// (`1:4:c0:a8:2b:1`). Inside strings it escapes `"`, `'`, `$`, `` ` `` and `\` with a
/// backslash and other non-printable bytes as three octal digits (`\137`). This parser accepts
/// those, plus `\xHH`, `\n`, `\t`, `\r` and `\b` (which dhclient's own lexer also reads).
///
/// Rules:
/// - `#` starts a comment outside strings; strings may contain `{`, `}`, `;` and `#`.
/// - Only complete `lease { … }` blocks count; `lease6` and any other block is skipped, and a
///   block cut off by the end of the file (a write in progress) is ignored.
/// - The last complete block whose `interface` is the requested one is the current lease
///   (dhclient appends). Blocks with no `interface` statement only match a `nil` interface.
/// - With a vendor option space configured (`vendor option space …;`), dhclient would print
///   option 43 decoded as `option SPACE.NAME …` statements instead; those are not read (Android
///   hotspots send no decodable sub-options, and no stock configuration declares one).
/// - dhclient records option 43 only if the server sent it; the hint's absence is not proof
///   the network is unmetered.
/// - Option 6 is `option domain-name-servers 192.168.1.1,192.168.1.2;` (format `IA`: the
///   addresses joined by commas). Option 114 has format `t` and the name `default-url` in ISC
///   DHCP 4.x's table, so it is printed as a quoted string; dhclient 3 named it `option-114`
///   (format `X`), and a client without it in its table would print `unknown-114`: those names,
///   as a quoted string or as colon-separated hex, are read too. dhclient records option 114
///   only if the server sent it, usually only when asked (`request … default-url`).
extension DHCPLeaseParser {
    /// The `ANDROID_METERED` hint and address of the current lease for `interface` in a dhclient
    /// lease file.
    ///
    /// - Parameters:
    ///   - text: the lease file's contents (`dhclient.leases` may hold several interfaces' leases).
    ///   - interface: the interface name (`interface "wlan0";`), or `nil` to take the last
    ///     complete lease block whatever its interface.
    /// - Returns: `nil` when the text has no complete `lease { … }` block for `interface`.
    public static func hints(dhclient text: String, interface: String?) -> DHCPLeaseHints? {
        var current: DHCPLeaseHints?
        for block in DhclientLexer.leaseBlocks(Array(text.utf8)) {
            guard block.interface == interface || interface == nil else { continue }
            current = DHCPLeaseHints(
                vendorSpecific: block.vendorSpecific, address: block.address, dnsServers: block.dnsServers,
                captivePortalURL: block.captivePortalURL)
        }
        return current
    }
}

/// A token of dhclient's configuration syntax (the lease file uses the same lexer).
enum DhclientToken: Equatable {
    case word([UInt8])
    case string([UInt8])
    case open
    case close
    case semicolon
}

/// One `lease { … }` block, reduced to what matters here.
struct DhclientLeaseBlock: Equatable {
    var interface: String?
    var address: String?
    var vendorSpecific: [UInt8]?
    var dnsServers: [String] = []
    var captivePortalURL: String?
}

enum DhclientLexer {
    /// Splits `bytes` into tokens. Unterminated strings run to the end of the input.
    static func tokens(_ bytes: [UInt8]) -> [DhclientToken] {
        var tokens: [DhclientToken] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0B, 0x0C:
                index += 1
            case UInt8(ascii: "#"):
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            case UInt8(ascii: "{"):
                tokens.append(.open)
                index += 1
            case UInt8(ascii: "}"):
                tokens.append(.close)
                index += 1
            case UInt8(ascii: ";"):
                tokens.append(.semicolon)
                index += 1
            case UInt8(ascii: "\""):
                let (value, next) = string(bytes, from: index + 1)
                tokens.append(.string(value))
                index = next
            default:
                let start = index
                while index < bytes.count, !isDelimiter(bytes[index]) { index += 1 }
                tokens.append(.word(Array(bytes[start..<index])))
            }
        }
        return tokens
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0B, 0x0C,
            UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: ";"), UInt8(ascii: "\""), UInt8(ascii: "#"):
            true
        default: false
        }
    }

    /// The string starting after an opening quote at `start`, and the index after its closing
    /// quote (or the end of input).
    private static func string(_ bytes: [UInt8], from start: Int) -> ([UInt8], Int) {
        var value: [UInt8] = []
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { return (value, index + 1) }
            guard byte == UInt8(ascii: "\\"), index + 1 < bytes.count else {
                value.append(byte)
                index += 1
                continue
            }
            let escaped = bytes[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                // Up to three octal digits, the first already read.
                var code = Int(escaped - UInt8(ascii: "0"))
                var digits = 1
                while digits < 3, index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[index]) {
                    code = code * 8 + Int(bytes[index] - UInt8(ascii: "0"))
                    index += 1
                    digits += 1
                }
                value.append(UInt8(truncatingIfNeeded: code))
            case UInt8(ascii: "x"):
                var code: UInt8 = 0
                var digits = 0
                while digits < 2, index < bytes.count, let nibble = ASCIIHex.value(bytes[index]) {
                    code = code << 4 | nibble
                    index += 1
                    digits += 1
                }
                value.append(digits == 0 ? UInt8(ascii: "x") : code)
            case UInt8(ascii: "n"): value.append(0x0A)
            case UInt8(ascii: "t"): value.append(0x09)
            case UInt8(ascii: "r"): value.append(0x0D)
            case UInt8(ascii: "b"): value.append(0x08)
            default: value.append(escaped)
            }
        }
        return (value, index)
    }

    /// Every complete top-level `lease { … }` block, in file order.
    static func leaseBlocks(_ bytes: [UInt8]) -> [DhclientLeaseBlock] {
        let tokens = tokens(bytes)
        var blocks: [DhclientLeaseBlock] = []
        var index = 0
        while index < tokens.count {
            // A top-level block opens with `NAME {`; anything else is a statement to skip.
            guard case .open = tokens[index] else {
                index += 1
                continue
            }
            let isLease = index > 0 && tokens[index - 1] == .word(Array("lease".utf8))
            guard let end = matchingClose(tokens, open: index) else { break }
            if isLease { blocks.append(block(tokens[(index + 1)..<end])) }
            index = end + 1
        }
        return blocks
    }

    /// The index of the `}` closing the `{` at `open`, or `nil` if the input ends first.
    private static func matchingClose(_ tokens: [DhclientToken], open: Int) -> Int? {
        var depth = 0
        var index = open
        while index < tokens.count {
            switch tokens[index] {
            case .open: depth += 1
            case .close:
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
            index += 1
        }
        return nil
    }

    /// The statements of one block body, nested blocks skipped.
    private static func block(_ body: ArraySlice<DhclientToken>) -> DhclientLeaseBlock {
        var result = DhclientLeaseBlock()
        var statement: [DhclientToken] = []
        var depth = 0
        for token in body {
            switch token {
            case .open:
                depth += 1
                statement = []
            case .close:
                depth = max(0, depth - 1)
                statement = []
            case .semicolon:
                if depth == 0 { apply(statement, to: &result) }
                statement = []
            default:
                statement.append(token)
            }
        }
        return result
    }

    private static func apply(_ statement: [DhclientToken], to block: inout DhclientLeaseBlock) {
        guard case .word(let keyword) = statement.first else { return }
        switch String(decoding: keyword, as: UTF8.self) {
        case "interface":
            if statement.count >= 2, case .string(let name) = statement[1] {
                block.interface = String(decoding: name, as: UTF8.self)
            }
        case "fixed-address":
            if statement.count >= 2, case .word(let address) = statement[1] {
                block.address = DHCPLeaseParser.validIPv4(String(decoding: address, as: UTF8.self)[...])
            }
        case "option":
            guard statement.count >= 3, case .word(let name) = statement[1] else { return }
            applyOption(String(decoding: name, as: UTF8.self), value: statement[2...], to: &block)
        default:
            break
        }
    }

    /// The options read from an `option NAME VALUE;` statement; others are ignored.
    private static func applyOption(_ name: String, value: ArraySlice<DhclientToken>, to block: inout DhclientLeaseBlock) {
        switch name {
        case "vendor-encapsulated-options":
            block.vendorSpecific = optionValue(value)
        case "domain-name-servers":
            var words: [UInt8] = []
            for case .word(let word) in value { words += word + [UInt8(ascii: " ")] }
            block.dnsServers = DHCPLeaseParser.dnsServers(text: String(decoding: words, as: UTF8.self))
        case "default-url", "option-114", "unknown-114":
            block.captivePortalURL = DHCPLeaseParser.captivePortalURL(optionValue(value))
        default:
            break
        }
    }

    /// An `X`-format option value: one quoted string, or colon-separated hex words.
    private static func optionValue(_ tokens: ArraySlice<DhclientToken>) -> [UInt8] {
        if tokens.count == 1, case .string(let text) = tokens.first {
            return text
        }
        var words: [UInt8] = []
        for token in tokens {
            switch token {
            case .word(let word): words += word
            case .string(let text): words += text
            default: break
            }
        }
        return DHCPLeaseParser.decodeHex(String(decoding: words, as: UTF8.self)[...].utf8) ?? words
    }
}
