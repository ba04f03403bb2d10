#!/usr/bin/env python3
"""Floods the reach daemon's /v1/route with names that resolve slowly, as a hostile local
user would, and times answers for an address literal meanwhile (standard library only).

  route_flood.py SOCKET [--connections 100] [--seconds 30] [--literal ADDRESS] [--out FILE]

Each of CONNECTIONS threads asks, one request after another, for a name of its own that was
never asked before (slow-T-N.example), until SECONDS pass or SIGTERM. With --literal, one more
thread asks for ADDRESS every 10 ms and records each answer's latency. Prints one JSON object
at the end (to --out when given): statuses counted, and the literal's latencies (ms: p50, p99,
max, count).
"""
import argparse
import json
import signal
import socket
import threading
import time


def ask(path: str, host: str, timeout: float = 30.0) -> int:
    """The status of GET /v1/route?host=HOST over the socket (0: no answer)."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(timeout)
    try:
        connection.connect(path)
        connection.sendall(f"GET /v1/route?host={host} HTTP/1.0\r\nHost: reach\r\n\r\n".encode())
        answer = b""
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                break
            answer += chunk
        parts = answer.split(b" ", 2)
        return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
    except OSError:
        return 0
    finally:
        connection.close()


def percentile(values, fraction):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("socket")
    parser.add_argument("--connections", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--literal")
    parser.add_argument("--out")
    args = parser.parse_args()
    stop = threading.Event()
    # A test runner may start us with SIGTERM blocked (its children inherit the mask).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    lock = threading.Lock()
    statuses: dict[str, int] = {}
    latencies: list[float] = []

    def flood(index: int) -> None:
        count = 0
        while not stop.is_set():
            status = ask(args.socket, f"slow-{index}-{count}.example")
            count += 1
            with lock:
                statuses[str(status)] = statuses.get(str(status), 0) + 1
            if status == 429:
                time.sleep(0.05)

    def literal() -> None:
        while not stop.is_set():
            began = time.monotonic()
            status = ask(args.socket, args.literal)
            took = (time.monotonic() - began) * 1000
            with lock:
                if status == 200:
                    latencies.append(took)
                else:
                    statuses[f"literal-{status}"] = statuses.get(f"literal-{status}", 0) + 1
            time.sleep(0.01)

    threads = [threading.Thread(target=flood, args=(index,), daemon=True) for index in range(args.connections)]
    if args.literal:
        threads.append(threading.Thread(target=literal, daemon=True))
    for thread in threads:
        thread.start()
    print("flooding", flush=True)
    stop.wait(args.seconds)
    stop.set()
    with lock:
        report = {
            "statuses": statuses,
            "literal": {
                "count": len(latencies),
                "p50": percentile(latencies, 0.5),
                "p99": percentile(latencies, 0.99),
                "max": max(latencies) if latencies else None,
            },
        }
    text = json.dumps(report)
    if args.out:
        with open(args.out, "w") as out:
            out.write(text + "\n")
    print(text, flush=True)


if __name__ == "__main__":
    main()
