#!/usr/bin/env python3
"""Writes the binary seed corpora: netlink route and rule messages, dhcpcd leases, header
lines with control bytes (request splitting attempts), and DNS responses.

The text seeds (configuration lines, selectors, globs, text leases) are committed as written;
these are generated because they are bytes. Native byte order, as the kernel sends them.
Run from anywhere: python3 scripts/fuzz/make_seeds.py
"""
import ipaddress
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# <linux/rtnetlink.h>, <linux/fib_rules.h>, <sys/socket.h>
RTM_NEWROUTE, RTM_DELROUTE, RTM_NEWRULE = 24, 25, 32
RTA_DST, RTA_OIF, RTA_GATEWAY, RTA_PRIORITY, RTA_PREFSRC = 1, 4, 5, 6, 7
RTA_MULTIPATH, RTA_CACHEINFO, RTA_TABLE, RTA_PREF = 9, 12, 15, 20
FRA_PRIORITY, FRA_FWMARK, FRA_TABLE, FRA_FWMASK = 6, 10, 15, 16
AF_INET, AF_INET6 = 2, 10
RTN_UNICAST, RTN_UNREACHABLE = 1, 7
RT_TABLE_MAIN = 254
RTPROT_KERNEL, RTPROT_BOOT, RTPROT_RA, RTPROT_DHCP = 2, 3, 9, 16
RT_SCOPE_UNIVERSE, RT_SCOPE_LINK = 0, 253
RTM_F_CLONED = 0x200
NLM_F_MULTI = 0x2


def pad(data):
    return data + b"\0" * (-len(data) % 4)


def attr(kind, payload):
    return pad(struct.pack("=HH", 4 + len(payload), kind) + payload)


def u32(value):
    return struct.pack("=I", value)


def addr(text):
    return ipaddress.ip_address(text).packed


def hop(ifindex, gateway=None):
    attrs = attr(RTA_GATEWAY, addr(gateway)) if gateway else b""
    return struct.pack("=HBBi", 8 + len(attrs), 0, 0, ifindex) + attrs


def message(kind, body, attrs, flags=NLM_F_MULTI):
    payload = pad(body) + b"".join(attrs)
    return struct.pack("=IHHII", 16 + len(payload), kind, flags, 1, 0) + payload


def route(family, attrs, kind=RTM_NEWROUTE, dst_len=0, table=RT_TABLE_MAIN, protocol=RTPROT_DHCP,
          scope=RT_SCOPE_UNIVERSE, rtype=RTN_UNICAST, flags=0):
    body = struct.pack("=BBBBBBBBI", family, dst_len, 0, 0, table, protocol, scope, rtype, flags)
    return message(kind, body, attrs)


def rule(family, attrs, table=RT_TABLE_MAIN):
    body = struct.pack("=BBBBBBBBI", family, 0, 0, 0, table, 0, 0, 1, 0)
    return message(RTM_NEWRULE, body, attrs)


ROUTES = {
    "ipv4-default-dhcp": route(AF_INET, [
        attr(RTA_TABLE, u32(RT_TABLE_MAIN)), attr(RTA_PRIORITY, u32(600)), attr(RTA_PREFSRC, addr("192.168.1.23")),
        attr(RTA_GATEWAY, addr("192.168.1.1")), attr(RTA_OIF, u32(2))]),
    "ipv4-default-delroute": route(AF_INET, [
        attr(RTA_TABLE, u32(RT_TABLE_MAIN)), attr(RTA_PRIORITY, u32(100)), attr(RTA_GATEWAY, addr("10.0.0.1")),
        attr(RTA_OIF, u32(3))], kind=RTM_DELROUTE),
    "ipv4-subnet-link-scope": route(AF_INET, [
        attr(RTA_TABLE, u32(RT_TABLE_MAIN)), attr(RTA_DST, addr("192.168.1.0")), attr(RTA_PRIORITY, u32(600)),
        attr(RTA_PREFSRC, addr("192.168.1.23")), attr(RTA_OIF, u32(2))],
        dst_len=24, protocol=RTPROT_KERNEL, scope=RT_SCOPE_LINK),
    "ipv4-policy-table-1000": route(AF_INET, [
        attr(RTA_TABLE, u32(1000)), attr(RTA_GATEWAY, addr("100.64.0.1")), attr(RTA_OIF, u32(5))],
        table=252, protocol=RTPROT_BOOT),
    "ipv4-multipath": route(AF_INET, [
        attr(RTA_TABLE, u32(RT_TABLE_MAIN)), attr(RTA_PRIORITY, u32(50)),
        attr(RTA_MULTIPATH, hop(2, "10.0.0.1") + hop(3, "10.1.0.1") + hop(4))]),
    "ipv4-cloned-cache": route(AF_INET, [
        attr(RTA_TABLE, u32(RT_TABLE_MAIN)), attr(RTA_DST, addr("8.8.8.8")), attr(RTA_GATEWAY, addr("192.168.1.1")),
        attr(RTA_OIF, u32(2)), attr(RTA_CACHEINFO, bytes(32))], dst_len=32, flags=RTM_F_CLONED),
    "ipv4-unreachable": route(AF_INET, [attr(RTA_TABLE, u32(RT_TABLE_MAIN)), attr(RTA_PRIORITY, u32(4278198272))],
                              rtype=RTN_UNREACHABLE, protocol=RTPROT_BOOT),
    "ipv6-default-ra": route(AF_INET6, [
        attr(RTA_TABLE, u32(RT_TABLE_MAIN)), attr(RTA_PRIORITY, u32(1024)), attr(RTA_GATEWAY, addr("fe80::1")),
        attr(RTA_OIF, u32(3)), attr(RTA_CACHEINFO, bytes(32)), attr(RTA_PREF, b"\0")], protocol=RTPROT_RA),
    "ipv6-prefsrc": route(AF_INET6, [
        attr(RTA_TABLE, u32(RT_TABLE_MAIN)), attr(RTA_PRIORITY, u32(100)), attr(RTA_PREFSRC, addr("2001:db8::5")),
        attr(RTA_GATEWAY, addr("2001:db8::1")), attr(RTA_OIF, u32(4))], protocol=RTPROT_BOOT),
    "ipv6-multipath": route(AF_INET6, [
        attr(RTA_TABLE, u32(RT_TABLE_MAIN)), attr(RTA_PRIORITY, u32(1024)),
        attr(RTA_MULTIPATH, hop(3, "fe80::1") + hop(4, "fe80::2"))], protocol=RTPROT_RA),
    "ipv6-delroute": route(AF_INET6, [
        attr(RTA_TABLE, u32(RT_TABLE_MAIN)), attr(RTA_GATEWAY, addr("fe80::1")), attr(RTA_OIF, u32(3))],
        kind=RTM_DELROUTE, protocol=RTPROT_RA),
    "rule-fwmark": rule(AF_INET, [
        attr(FRA_TABLE, u32(100)), attr(FRA_PRIORITY, u32(32000)), attr(FRA_FWMARK, u32(0xCA6C)),
        attr(FRA_FWMASK, u32(0xFFFFFFFF))]),
    "rule-ipv6-fwmark": rule(AF_INET6, [attr(FRA_PRIORITY, u32(100)), attr(FRA_FWMARK, u32(1))]),
    "rule-no-mark": rule(AF_INET, [attr(FRA_TABLE, u32(RT_TABLE_MAIN)), attr(FRA_PRIORITY, u32(32766))]),
}


def dhcp_ack(options, yiaddr="192.168.43.37"):
    header = bytearray(236)
    header[0:4] = bytes([2, 1, 6, 0])
    header[4:8] = bytes([0x3C, 0x1F, 0x9A, 0x42])
    header[16:20] = addr(yiaddr)
    header[28:34] = bytes([0x5A, 0x6B, 0x2C, 0x7D, 0x00, 0x02])
    return bytes(header) + bytes([99, 130, 83, 99]) + options


def option(code, data):
    return bytes([code, len(data)]) + data


ACK = option(53, b"\x05") + option(54, addr("192.168.43.1")) + option(51, struct.pack(">I", 3600)) + option(3, addr("192.168.43.1"))
LEASES = {
    "dhcpcd-android-metered.lease": dhcp_ack(ACK + option(43, b"ANDROID_METERED") + b"\xff"),
    "dhcpcd-home.lease": dhcp_ack(ACK + b"\xff", yiaddr="192.168.1.23"),
    "dhcpcd-overload.lease": dhcp_ack(option(53, b"\x05") + option(52, b"\x03") + option(43, b"ANDR") + b"\xff"),
    "dhcpcd-dns-portal.lease": dhcp_ack(ACK + option(6, addr("192.168.43.1") + addr("9.9.9.9"))
                                        + option(114, b"https://portal.example/cap") + option(114, b"port\0") + b"\xff"),
}


def write(directory, files):
    os.makedirs(directory, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(directory, name), "wb") as handle:
            handle.write(data)


# `-H` values that must never reach the wire: CR/LF would split the request, NUL truncate it.
HEADERS = {
    "header-crlf-injection": b"X-Token: abc\r\nInjected: 1",
    "header-lf": b"X-Token: abc\ndef",
    "header-nul": b"X-Token: abc\0def",
    "header-nul-name": b"X\0Y: v",
    "content-length-nul": b"Content-Length: 5\0",
}

def dns_name(text):
    return b"".join(bytes([len(label)]) + label.encode() for label in text.split(".")) + b"\0"


def dns_record(owner, rtype, data, rclass=1):
    return owner + struct.pack(">HHIH", rtype, rclass, 60, len(data)) + data


def dns_response(answers, flags=0x8180, qtype=1, qdcount=1, name="probe.test", rid=0x1234):
    question = dns_name(name) + struct.pack(">HH", qtype, 1) if qdcount else b""
    return struct.pack(">HHHHHH", rid, flags, qdcount, len(answers), 0, 0) + question + b"".join(answers)


# Responses to a query for probe.test (the fuzz target takes the first two bytes as the id).
QUESTION_NAME = b"\xc0\x0c"
DNS = {
    "a-record": dns_response([dns_record(QUESTION_NAME, 1, addr("10.53.0.1"))]),
    "aaaa-record": dns_response([dns_record(QUESTION_NAME, 28, addr("2001:db8::1"))], qtype=28),
    "cname-chain": dns_response([
        dns_record(QUESTION_NAME, 5, b"\x04edge\x03cdn\xc0\x12"),
        dns_record(b"\xc0\x28", 5, b"\x04node\xc0\x2d"),
        dns_record(dns_name("node.cdn.test"), 1, addr("192.0.2.7")),
        dns_record(dns_name("ads.test"), 1, addr("192.0.2.99"))]),
    "cname-loop": dns_response([
        dns_record(QUESTION_NAME, 5, dns_name("b.test")), dns_record(dns_name("b.test"), 5, dns_name("probe.test"))]),
    "nxdomain": dns_response([], flags=0x8183),
    "refused-no-question": dns_response([], flags=0x8185, qdcount=0),
    "truncated": dns_response([dns_record(QUESTION_NAME, 1, addr("10.0.0.1"))], flags=0x8380),
    "pointer-loop": dns_response([dns_record(b"\xc0\x1c", 1, addr("10.0.0.1"))]),
    "pointer-pair": dns_response([dns_record(b"\xc0\x1e\xc0\x1c", 1, addr("10.0.0.1"))]),
    "other-class": dns_response([dns_record(QUESTION_NAME, 1, addr("10.0.0.1"), rclass=3)]),
    "upper-case-echo": dns_response([dns_record(QUESTION_NAME, 1, addr("10.0.0.1"))], name="PROBE.Test"),
    "nodata-aaaa": dns_response([], qtype=28),
}



def element(eid, body):
    return bytes([eid, len(body)]) + body


MS_COST = lambda level, flags=0: element(221, bytes([0x00, 0x50, 0xF2, 0x11, level, 0, flags, 0]))
INTERWORKING = lambda ant: element(107, bytes([0x10 | ant]))
APPLE = element(221, bytes.fromhex("0017f206010103010000")) + element(221, bytes.fromhex("0017f20602010606aabbccddee"))
RATES = element(1, bytes([0x82, 0x84, 0x8B, 0x96, 0x0C, 0x12, 0x18, 0x24]))
# Beacon and probe-response element sets as hotspots send them (anchors-3 §1.2).
ELEMENTS = {
    "plain-ap": element(0, b"Home") + RATES + element(3, b"\x06"),
    "windows-hotspot-cost-first": MS_COST(2) + element(0, b"DESKTOP-1 1234") + RATES,
    "samsung-cost-last": element(0, b"Galaxy") + RATES + MS_COST(2),
    "cost-variable-flags": element(0, b"x") + MS_COST(4, 0x0F),
    "android-tether": element(0, b"AndroidAP") + RATES + INTERWORKING(2),
    "personal-device": element(0, b"Pixel") + INTERWORKING(4),
    "iphone-hotspot": element(0, "Ann’s iPhone".encode()) + RATES + APPLE,
    "truncated": element(0, b"Cut") + bytes([221, 40, 0x00, 0x50, 0xF2]),
    "hidden-ssid": element(0, b"") + RATES,
}

# nl80211 attributes (linux/nl80211.h), native byte order: what follows struct genlmsghdr.
NLA_F_NESTED = 0x8000


def nested(kind, payload):
    return attr(kind | NLA_F_NESTED, payload)


def s32(value):
    return struct.pack("=i", value)


def mac(text):
    return bytes(int(part, 16) for part in text.split(":"))


def bss_entry(bssid, beacon, latest=None, status=1, freq=2412, mbm=-3000):
    body = attr(1, mac(bssid)) + attr(2, u32(freq)) + attr(7, s32(mbm)) + attr(10, u32(40))
    if status is not None:
        body += attr(9, u32(status))
    if latest is not None:
        body += attr(6, latest)
    if beacon is not None:
        body += attr(11, beacon)
    return attr(46, u32(7)) + attr(3, u32(5)) + attr(153, struct.pack("=Q", 1)) + nested(47, body)


NL80211 = {
    "interface-station": attr(1, u32(0)) + attr(3, u32(5)) + attr(4, b"wlan0\0") + attr(5, u32(2)) + attr(52, b"Cafe")
                         + attr(38, u32(2437)) + attr(6, mac("02:00:00:00:00:00")),
    "interface-ap": attr(3, u32(6)) + attr(5, u32(3)),
    "scan-current-android": bss_entry("02:1a:11:00:00:01", ELEMENTS["android-tether"]),
    "scan-probe-only-iphone": bss_entry("06:11:22:33:44:55", None, ELEMENTS["iphone-hotspot"], status=None),
    "scan-both-sets": bss_entry("a4:2b:b0:00:00:01", ELEMENTS["plain-ap"], ELEMENTS["samsung-cost-last"]),
    "station": attr(3, u32(5)) + attr(6, mac("02:00:00:00:01:00"))
               + nested(21, attr(7, b"\xe2") + attr(13, b"\xe0") + nested(8, attr(5, u32(540))) + nested(14, attr(1, struct.pack("=H", 60)))),
    "truncated-nest": attr(3, u32(5)) + struct.pack("=HH", 200, 47 | NLA_F_NESTED) + b"\x01\x02",
}

write(os.path.join(HERE, "corpus", "FuzzInformationElements"), ELEMENTS)
write(os.path.join(HERE, "corpus", "FuzzNl80211"), NL80211)
write(os.path.join(HERE, "corpus", "FuzzRouteMessage"), ROUTES)
write(os.path.join(HERE, "corpus", "FuzzHTTPHeader"), HEADERS)
write(os.path.join(HERE, "corpus", "FuzzDHCPLease"), LEASES)
write(os.path.join(HERE, "corpus", "FuzzDNSMessage"), DNS)
