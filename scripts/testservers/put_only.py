#!/usr/bin/env python3
"""A plain PUT server for the upload tests (standard library only), as most simple servers
are: no OPTIONS (http.server answers it 501 Not Implemented), or `--options 405` for one that
refuses the method.

  put_only.py DIRECTORY LOG [--options 501|405]

Prints "listening on 127.0.0.1:PORT" once serving. PUT stores the body as DIRECTORY/NAME and
answers 201; each request appends "METHOD PATH STATUS" to LOG.
"""
import argparse
import http.server
import os
import threading


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("directory")
    parser.add_argument("log")
    parser.add_argument("--options", choices=["501", "405"], default="501")
    args = parser.parse_args()
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_):  # the LOG file is the record
            pass

        def log_request(self, code="-", size="-"):
            with lock, open(args.log, "a") as log:
                log.write(f"{self.command} {self.path} {int(code) if str(code).isdigit() else code}\n")

        def do_PUT(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            name = os.path.basename(self.path.split("?", 1)[0]) or "upload.bin"
            with open(os.path.join(args.directory, name), "wb") as out:
                left = length
                while left > 0:
                    chunk = self.rfile.read(min(left, 1 << 16))
                    if not chunk:
                        break
                    out.write(chunk)
                    left -= len(chunk)
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        if args.options == "405":
            def do_OPTIONS(self) -> None:
                self.send_response(405)
                self.send_header("Allow", "PUT")
                self.send_header("Content-Length", "0")
                self.end_headers()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"listening on 127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
