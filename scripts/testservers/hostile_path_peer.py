#!/usr/bin/env python3
"""A hostile peer on the reach daemon's socket, for the GIO module's and `reach queue`'s
checks (standard library only).

  hostile_path_peer.py SOCKET MODE [--record FILE]

MODE:
  deep-events  /v1/path/events answered with 200 and a line of 200,000 '['
  deep-route   /v1/path/events answered with a good path line (then held open); /v1/route
               answered with 200,000 '['
  trickle      every request answered one byte every 0.9 s, forever
  any          a good path line to every request (to be run as another user: the client must
               not send it anything)

Prints "listening on SOCKET" once serving; with --record, appends every request's bytes (or
"(connected, nothing sent)") to FILE, one line per connection.
"""
import argparse
import os
import signal
import socket
import threading
import time

PATH_LINE = b'{"status":"cellular","expensive":true,"constrained":false,"connectivity":"unknown","interfaces":[]}\n'
HEADER = b"HTTP/1.0 200 OK\r\nContent-Type: application/x-ndjson\r\n\r\n"


def serve(connection, mode, record, lock):
    connection.settimeout(5)
    request = b""
    try:
        while b"\r\n\r\n" not in request:
            chunk = connection.recv(4096)
            if not chunk:
                break
            request += chunk
    except OSError:
        pass
    if record:
        with lock, open(record, "a") as out:
            out.write((request.split(b"\r\n", 1)[0].decode("latin-1") if request else "(connected, nothing sent)") + "\n")
    try:
        if mode == "trickle":
            for byte in HEADER + PATH_LINE:
                connection.sendall(bytes([byte]))
                time.sleep(0.9)
        elif mode == "deep-events" or (mode == "deep-route" and b"/v1/route" in request):
            connection.sendall(HEADER + b"[" * 200_000 + b"\n")
        else:
            connection.sendall(HEADER + PATH_LINE)
            time.sleep(60)
    except OSError:
        pass
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("socket")
    parser.add_argument("mode", choices=["deep-events", "deep-route", "trickle", "any"])
    parser.add_argument("--record")
    args = parser.parse_args()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    if os.path.exists(args.socket):
        os.unlink(args.socket)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(args.socket)
    os.chmod(args.socket, 0o666)
    server.listen(64)
    lock = threading.Lock()
    print(f"listening on {args.socket}", flush=True)
    while True:
        connection, _ = server.accept()
        threading.Thread(target=serve, args=(connection, args.mode, args.record, lock), daemon=True).start()


if __name__ == "__main__":
    main()
