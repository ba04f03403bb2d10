#!/usr/bin/env python3
"""Holds many connections to a reach daemon socket, as a user locking others out would
(standard library only).

  hold_connections.py SOCKET COUNT [--stream]

Opens COUNT connections. With --stream each asks for /v1/path/events and is counted as held
when its answer's status line is 200; without, each stays silent (idle). Prints "held N"
(streams answered, or connections accepted) and then keeps them all until SIGTERM.
"""
import argparse
import signal
import socket
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("socket")
    parser.add_argument("count", type=int)
    parser.add_argument("--stream", action="store_true")
    args = parser.parse_args()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    signal.signal(signal.SIGTERM, lambda *_: exit(0))
    connections, held = [], 0
    for _ in range(args.count):
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.connect(args.socket)
        except OSError:
            continue
        connections.append(connection)
        if args.stream:
            connection.sendall(b"GET /v1/path/events HTTP/1.1\r\nHost: reach\r\n\r\n")
    for connection in connections:
        if not args.stream:
            held += 1
            continue
        connection.settimeout(2)
        try:
            if connection.recv(12).startswith(b"HTTP/1.1 200"):
                held += 1
        except OSError:
            pass
    print(f"held {held}", flush=True)
    while True:
        time.sleep(60)


if __name__ == "__main__":
    main()
