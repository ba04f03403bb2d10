#!/usr/bin/env python3
"""A scripted tus 1.0 endpoint for the upload tests (standard library only): it behaves as
asked, including badly, and logs every request with the credential headers it received.

  tus_scripted.py LOG [--patch advance|stall] [--location-origin http://HOST:PORT]

Prints "listening on 127.0.0.1:PORT" once serving. POST creates an upload whose Location is
on --location-origin (default: its own); HEAD answers the offset; PATCH reads the body and, with
`--patch stall`, answers 204 without moving the offset (a server whose storage is broken).
Each request appends "METHOD PATH auth=… cookie=… x-album=…" to LOG ("-" for an absent header)
before it is answered.
"""
import argparse
import http.server
import threading
import uuid


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("log")
    parser.add_argument("--patch", choices=["advance", "stall"], default="advance")
    parser.add_argument("--location-origin")
    args = parser.parse_args()
    offsets: dict[str, int] = {}
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_):  # the LOG file is the record
            pass

        def record(self) -> None:
            fields = " ".join(f"{name.lower()}={self.headers.get(name, '-')}" for name in ("Authorization", "Cookie", "X-Album"))
            with lock, open(args.log, "a") as log:
                log.write(f"{self.command} {self.path} {fields}\n")

        def answer(self, status: int, headers: dict[str, str]) -> None:
            self.send_response(status)
            for name, value in {"Tus-Resumable": "1.0.0", "Content-Length": "0", **headers}.items():
                self.send_header(name, value)
            self.end_headers()

        def upload_id(self) -> str:
            return self.path.rstrip("/").rsplit("/", 1)[-1]

        def do_OPTIONS(self) -> None:
            self.record()
            self.answer(204, {"Tus-Version": "1.0.0", "Tus-Extension": "creation"})

        def do_POST(self) -> None:
            self.record()
            identifier = uuid.uuid4().hex
            with lock:
                offsets[identifier] = 0
            origin = args.location_origin or f"http://127.0.0.1:{self.server.server_address[1]}"
            self.answer(201, {"Location": f"{origin}/files/{identifier}"})

        def do_HEAD(self) -> None:
            self.record()
            with lock:
                offset = offsets.setdefault(self.upload_id(), 0)
            self.answer(200, {"Upload-Offset": str(offset), "Cache-Control": "no-store"})

        def do_PATCH(self) -> None:
            self.record()
            remaining = int(self.headers.get("Content-Length", "0"))
            while remaining > 0:
                chunk = self.rfile.read(min(remaining, 1 << 16))
                if not chunk:
                    break
                remaining -= len(chunk)
            with lock:
                start = int(self.headers.get("Upload-Offset", "0"))
                received = int(self.headers.get("Content-Length", "0")) - remaining
                offsets[self.upload_id()] = start + received if args.patch == "advance" else offsets.get(self.upload_id(), 0)
                offset = offsets[self.upload_id()]
            self.answer(204, {"Upload-Offset": str(offset)})

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"listening on 127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
