#!/usr/bin/env python3
"""A slow HTTP upload sink for the daemon benchmark: plain PUT and a minimal tus 1.0 server.

    upload_sink.py --root DIR --rate BYTES_PER_SECOND --log FILE [--host 127.0.0.1] [--port 0]

Prints `listening on HOST:PORT` once it accepts connections. Every request body is read at
most at --rate bytes per second (per request), so an upload takes long enough to be
interrupted.

  PUT /put/NAME       the whole file; stored as DIR/NAME only once every byte arrived (201).
                      A PUT cut short leaves nothing: the next attempt is a full re-send.
  OPTIONS /put/...    204 without Tus-Resumable (so clients fall back to PUT).
  OPTIONS /tus/...    204 naming tus 1.0.0 (creation).
  POST /tus/NAME      creates an upload (Upload-Length) -> 201, Location: /tus/NAME/ID.
  HEAD /tus/NAME/ID   Upload-Offset: the bytes held, Upload-Length.
  PATCH /tus/NAME/ID  appends from Upload-Offset (409 if it is not the held offset); bytes are
                      kept as they arrive, so a PATCH cut short keeps what came (as tusd does).
                      When the upload is complete it is copied to DIR/NAME.
A HEAD or PATCH on an upload that another PATCH is still writing (a client killed mid-PATCH,
whose bytes the kernel still holds) stops that one first, as tusd's upload locks do. The
sockets' receive buffers are small (64 KiB), so little is left in flight when a client dies.

--log gets one JSON object per request: method, path, offset (tus), length (the declared
body length), received (body bytes read), complete, status.
"""
import argparse, json, os, shutil, socket, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TUS_VERSION = "1.0.0"


class Sink:
    def __init__(self, root, rate, log):
        self.root = root
        self.rate = rate
        self.log_path = log
        self.lock = threading.Lock()
        self.uploads = {}  # tus id -> Upload
        self.next_id = 0
        self.partial = os.path.join(root, ".partial")
        os.makedirs(self.partial, exist_ok=True)

    def log(self, entry):
        with self.lock, open(self.log_path, "a") as out:
            out.write(json.dumps(entry) + "\n")


class Upload:
    """A tus upload: its file, and a lock that one request at a time holds."""

    def __init__(self, name, length, path):
        self.name, self.length, self.path = name, length, path
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def take(self):
        """Asks the request holding the upload to stop, and waits for it to let go."""
        self.stop.set()
        self.lock.acquire()
        self.stop.clear()

    def release(self):
        self.lock.release()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "reach-bench-sink/1"

    def log_message(self, *args):  # quiet
        pass

    @property
    def sink(self):
        return self.server.sink

    def answer(self, status, headers=(), body=b""):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def read_slowly(self, length, write, stop=None):
        """Reads `length` body bytes at the sink's rate, handing each chunk to `write`; returns
        the bytes read (fewer when the peer went away, or `stop` was set)."""
        rate = self.sink.rate
        chunk = max(1024, min(65536, rate // 20))
        start = time.monotonic()
        received = 0
        while received < length and not (stop and stop.is_set()):
            try:
                data = self.rfile.read1(min(chunk, length - received))
            except (ConnectionError, OSError):
                break
            if not data:
                break
            write(data)
            received += len(data)
            due = start + received / rate
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        return received

    def do_OPTIONS(self):
        if self.path.startswith("/tus/"):
            self.answer(204, [("Tus-Resumable", TUS_VERSION), ("Tus-Version", TUS_VERSION), ("Tus-Extension", "creation")])
        else:
            self.answer(204, [("Allow", "PUT, OPTIONS")])

    def do_PUT(self):
        if not self.path.startswith("/put/"):
            return self.answer(404)
        name = os.path.basename(self.path)
        length = int(self.headers.get("Content-Length", "0"))
        part = os.path.join(self.sink.partial, f"{name}.{threading.get_ident()}")
        with open(part, "wb") as out:
            received = self.read_slowly(length, out.write)
        entry = {"method": "PUT", "path": self.path, "length": length, "received": received, "complete": received == length}
        if received == length:
            os.replace(part, os.path.join(self.sink.root, name))
            entry["status"] = 201
            self.sink.log(entry)
            self.answer(201)
        else:
            os.remove(part)
            entry["status"] = None
            self.sink.log(entry)
            self.close_connection = True

    def do_POST(self):
        if not self.path.startswith("/tus/"):
            return self.answer(404)
        length = int(self.headers.get("Upload-Length", "-1"))
        body = int(self.headers.get("Content-Length", "0"))
        if body:
            self.rfile.read(body)
        if length < 0:
            return self.answer(400)
        name = os.path.basename(self.path)
        with self.sink.lock:
            self.sink.next_id += 1
            upload_id = str(self.sink.next_id)
            path = os.path.join(self.sink.partial, f"tus-{upload_id}")
            open(path, "wb").close()
            self.sink.uploads[upload_id] = Upload(name, length, path)
        self.sink.log({"method": "POST", "path": self.path, "length": length, "received": 0, "complete": True, "status": 201})
        self.answer(201, [("Tus-Resumable", TUS_VERSION), ("Location", f"/tus/{name}/{upload_id}")])

    def upload(self):
        parts = self.path.strip("/").split("/")
        if len(parts) != 3 or parts[0] != "tus":
            return None, None
        return parts[2], self.sink.uploads.get(parts[2])

    def do_HEAD(self):
        _, upload = self.upload()
        if upload is None:
            return self.answer(404, [("Tus-Resumable", TUS_VERSION)])
        upload.take()
        try:
            held = os.path.getsize(upload.path)
        finally:
            upload.release()
        self.sink.log({"method": "HEAD", "path": self.path, "offset": held, "received": 0, "complete": True, "status": 200})
        self.answer(200, [("Tus-Resumable", TUS_VERSION), ("Upload-Offset", str(held)), ("Upload-Length", str(upload.length)),
                          ("Cache-Control", "no-store")])

    def do_PATCH(self):
        _, upload = self.upload()
        length = int(self.headers.get("Content-Length", "0"))
        if upload is None:
            return self.answer(404, [("Tus-Resumable", TUS_VERSION)])
        upload.take()
        try:
            held = os.path.getsize(upload.path)
            offset = int(self.headers.get("Upload-Offset", "-1"))
            if offset != held:
                self.sink.log({"method": "PATCH", "path": self.path, "offset": offset, "length": length, "received": 0,
                               "complete": False, "status": 409})
                self.close_connection = True
                return self.answer(409, [("Tus-Resumable", TUS_VERSION), ("Upload-Offset", str(held))])
            fd = os.open(upload.path, os.O_WRONLY | os.O_APPEND)
            try:
                received = self.read_slowly(min(length, upload.length - held), lambda data: os.write(fd, data), upload.stop)
            finally:
                os.close(fd)
            held += received
            if held == upload.length:
                shutil.copyfile(upload.path, os.path.join(self.sink.root, upload.name))
        finally:
            upload.release()
        complete = received == length
        self.sink.log({"method": "PATCH", "path": self.path, "offset": offset, "length": length, "received": received,
                       "complete": complete, "status": 204 if complete else None})
        if complete:
            self.answer(204, [("Tus-Resumable", TUS_VERSION), ("Upload-Offset", str(held))])
        else:
            self.close_connection = True


class SinkServer(ThreadingHTTPServer):
    daemon_threads = True

    def server_bind(self):
        # Accepted sockets inherit it: no autotuned multi-MiB buffer holding a dead client's bytes.
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        super().server_bind()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--rate", type=int, required=True, help="bytes per second per request")
    parser.add_argument("--log", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = SinkServer((args.host, args.port), Handler)
    server.sink = Sink(args.root, args.rate, args.log)
    print(f"listening on {args.host}:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
