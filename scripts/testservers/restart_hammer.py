#!/usr/bin/env python3
"""Asks a starting daemon for its jobs from the first connection it accepts, for the restart
test (standard library only): every answer must be the truth or "not yet".

  restart_hammer.py SOCKET JOB_COUNT [--seconds 30]

Connects to SOCKET as soon as it accepts, then alternates `GET /v1/jobs?view=summary`,
`GET /v1/jobs/1` and `GET /v1/budgets`, one connection each, until each has answered 200 five
times (or the time is up). Prints one JSON object: the answers by kind and status, and every
wrong one (a list without JOB_COUNT jobs, a 404 for job 1, a 503 without `starting` and
`Retry-After`).
"""
import argparse
import json
import socket
import time


def exchange(path: str, target: str) -> tuple[int, dict[str, str], bytes]:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(10)
    connection.connect(path)
    connection.sendall(f"GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
    data = b""
    while True:
        chunk = connection.recv(1 << 16)
        if not chunk:
            break
        data += chunk
    connection.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    if headers.get("transfer-encoding", "").lower() == "chunked":
        decoded, rest = b"", body
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                break
            decoded, rest = decoded + rest[:size], rest[size + 2:]
        body = decoded
    return status, headers, body


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("socket")
    parser.add_argument("jobs", type=int)
    parser.add_argument("--seconds", type=float, default=30)
    args = parser.parse_args()
    targets = {"list": "/v1/jobs?view=summary", "job": "/v1/jobs/1", "budgets": "/v1/budgets"}
    counts: dict[str, dict[str, int]] = {kind: {} for kind in targets}
    wrong: list[str] = []
    deadline = time.monotonic() + args.seconds
    turn = 0
    while time.monotonic() < deadline and min(counts[kind].get("200", 0) for kind in targets) < 5:
        kind = list(targets)[turn % len(targets)]
        try:
            status, headers, body = exchange(args.socket, targets[kind])
        except (FileNotFoundError, ConnectionRefusedError):
            time.sleep(0.001)
            continue
        turn += 1
        counts[kind][str(status)] = counts[kind].get(str(status), 0) + 1
        if status == 503:
            code = json.loads(body).get("error", {}).get("code")
            if code != "starting" or "retry-after" not in headers:
                wrong.append(f"{kind}: 503 with code {code}, Retry-After {headers.get('retry-after')}")
        elif kind == "list" and (status != 200 or len(json.loads(body)["jobs"]) != args.jobs):
            wrong.append(f"list: {status} with {len(json.loads(body).get('jobs', []))} jobs")
        elif kind == "job" and status != 200:
            wrong.append(f"job 1: {status} {body[:200]!r}")
        elif kind == "budgets" and status != 200:
            wrong.append(f"budgets: {status} {body[:200]!r}")
    print(json.dumps({"counts": counts, "wrong": wrong[:20], "wrongCount": len(wrong)}), flush=True)


if __name__ == "__main__":
    main()
