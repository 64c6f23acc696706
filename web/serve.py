#!/usr/bin/env python3
"""A static file server with byte ranges, on 127.0.0.1, for trying the
inspector and the JavaScript API on this computer (Python's own
``http.server`` ignores ``Range``, which the reader needs). Any static host
that answers range requests serves the same files.

    python3 web/serve.py [--port 8000] [--cert PEM --key PEM] [FOLDER]     (default: the current folder)

then open http://127.0.0.1:8000/build/wasm/dist/index.html?url=/path/to/array
(after ``scripts/wasm.sh``, and ``python -m tilefmt.web listing path/to/array``).
"""

import argparse
import functools
import http.server
import os
import re
import urllib.parse


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with single byte ranges (RFC 9110 14.2), as a static host
    serves them; every request is logged in the server's `requests` list
    when it has one."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm"}

    def log_message(self, *args):
        pass

    def send_head(self):
        log = getattr(self.server, "requests", None)  # a test's record of requests
        if log is not None:
            log.append((self.command, urllib.parse.urlsplit(self.path).path, self.headers.get("Range")))
        path = self.translate_path(self.path)
        m = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range") or "")
        if not m or not os.path.isfile(path):
            return super().send_head()
        size = os.path.getsize(path)
        start = int(m.group(1))
        end = min(int(m.group(2)) if m.group(2) else size - 1, size - 1)
        if start >= size or end < start:
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.end_headers()
            return None
        f = open(path, "rb")
        f.seek(start)
        self.send_response(206)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        self.range_left = end - start + 1
        return f

    def copyfile(self, source, outputfile):
        left = getattr(self, "range_left", None)
        if left is None:
            return super().copyfile(source, outputfile)
        while left > 0:
            chunk = source.read(min(left, 1 << 16))
            if not chunk:
                break
            outputfile.write(chunk)
            left -= len(chunk)



def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder", nargs="?", default=".")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--cert", help="HTTPS with this certificate (PEM) ...")
    p.add_argument("--key", help="... and its private key (PEM)")
    args = p.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port),
                                             functools.partial(RangeHandler, directory=os.path.abspath(args.folder)))
    scheme = "http"
    if args.cert:
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        scheme = "https"
    print(f"Serving {os.path.abspath(args.folder)} at {scheme}://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
