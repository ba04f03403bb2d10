"""A tus 1.0 server for the upload tests: tuspyserver's FastAPI router, served by uvicorn.

    tus_app.py FILES_DIR [--host ADDRESS] [--auth USER:PASSWORD] [--rate BYTES_PER_SECOND]

Uploads are created at http://ADDRESS:PORT/files/ and stored in FILES_DIR (the data in
FILES_DIR/UUID). It listens on ADDRESS (127.0.0.1 by default) on a port the kernel picks, and
prints "listening on ADDRESS:PORT" once connections are accepted. --auth requires HTTP Basic
credentials; --rate reads request bodies no faster than that, so a test can stop an upload
part-way. Runs until killed.
"""

import argparse
import asyncio
import base64
import socket
import sys
import time

import uvicorn
from fastapi import FastAPI, Header, HTTPException
from tuspyserver import create_tus_router


class Throttle:
    """ASGI middleware: request bodies are read at most `rate` bytes per second."""

    def __init__(self, app, rate):
        self.app = app
        self.rate = rate

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        start = time.monotonic()
        total = 0

        async def throttled():
            nonlocal total
            message = await receive()
            if message["type"] == "http.request":
                total += len(message.get("body", b""))
                delay = total / self.rate - (time.monotonic() - start)
                if delay > 0:
                    await asyncio.sleep(delay)
            return message

        await self.app(scope, throttled, send)


def make_app(files_dir, credentials, rate):
    expected = "Basic " + base64.b64encode(credentials.encode()).decode() if credentials else None

    async def check_auth(authorization: str = Header(None)):
        if expected is not None and authorization != expected:
            raise HTTPException(status_code=401, headers={"WWW-Authenticate": "Basic"})

    app = FastAPI()
    app.include_router(create_tus_router(prefix="files", files_dir=files_dir, auth=check_auth, days_to_keep=1))
    return Throttle(app, rate) if rate else app


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("files_dir")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--auth")
    parser.add_argument("--rate", type=int)
    args = parser.parse_args()

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, 0))
    sock.listen(128)
    # Listening already: connections queue until uvicorn accepts them.
    print(f"listening on {args.host}:{sock.getsockname()[1]}", flush=True)

    config = uvicorn.Config(make_app(args.files_dir, args.auth, args.rate), log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
