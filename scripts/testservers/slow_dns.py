#!/usr/bin/env python3
"""A DNS server that answers slowly, for the tests of lookups that must not stall anything
(standard library only).

  slow_dns.py ADDRESS [--delay SECONDS] [--answer NAME=IPV4 ...]

Listens on ADDRESS:53 (UDP). A query for a NAME given with --answer gets its A record at
once (AAAA and others: an empty answer, at once); every other query gets NXDOMAIN after
--delay seconds (default 4.5), each on its own timer, so a flood of slow names never delays
the fast ones. Prints "listening on ADDRESS:53" once serving; each query appends
"NAME TYPE" to stdout.
"""
import argparse
import signal
import socket
import struct
import sys
import threading


def parse_question(packet: bytes):
    """The query's id, name, type and the question's bytes, or None for a malformed packet."""
    if len(packet) < 12:
        return None
    (ident, _flags, questions) = struct.unpack("!HHH", packet[:6])
    if questions != 1:
        return None
    labels, offset = [], 12
    while offset < len(packet):
        length = packet[offset]
        offset += 1
        if length == 0:
            break
        if length > 63 or offset + length > len(packet):
            return None
        labels.append(packet[offset:offset + length].decode("ascii", "replace"))
        offset += length
    if offset + 4 > len(packet):
        return None
    qtype = struct.unpack("!H", packet[offset:offset + 2])[0]
    return ident, ".".join(labels).lower(), qtype, packet[12:offset + 4]


def reply(ident: int, question: bytes, rcode: int, address: str | None) -> bytes:
    answers = 1 if address else 0
    header = struct.pack("!HHHHHH", ident, 0x8180 | rcode, 1, answers, 0, 0)
    body = question
    if address:
        body += struct.pack("!HHHIH", 0xC00C, 1, 1, 60, 4) + socket.inet_aton(address)
    return header + body


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("address")
    parser.add_argument("--delay", type=float, default=4.5)
    parser.add_argument("--answer", action="append", default=[])
    args = parser.parse_args()
    # A test runner may start us with SIGTERM blocked (its children inherit the mask).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    known = dict(entry.lower().split("=", 1) for entry in args.answer)
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind((args.address, 53))
    lock = threading.Lock()
    print(f"listening on {args.address}:53", flush=True)

    def send(data: bytes, peer) -> None:
        with lock:
            server.sendto(data, peer)

    while True:
        packet, peer = server.recvfrom(4096)
        parsed = parse_question(packet)
        if parsed is None:
            continue
        ident, name, qtype, question = parsed
        print(name, qtype, flush=True)
        if name in known:
            send(reply(ident, question, 0, known[name] if qtype == 1 else None), peer)
        else:
            timer = threading.Timer(args.delay, send, (reply(ident, question, 3, None), peer))
            timer.daemon = True
            timer.start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
