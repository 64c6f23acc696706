#!/usr/bin/env python3
"""A server that fails like an overloaded object store, for the S3 backend's
retries (test_s3.cpp, run by s3_check.sh):

    s3_flaky.py PORT_FILE

GET /bucket/<n>-fails/key answers HTTP 503 SlowDown n times per path, then
200 with the path as the body; GET /bucket/headers/<name> answers with the
value of the request's header <name> (404 without one), for the headers
options add; every other request is a 404. It writes the
port it listens on to PORT_FILE.
"""
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

failed = {}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        path = self.path.split("?")[0]
        parts = path.split("/")
        if len(parts) == 4 and parts[2] == "headers":
            value = self.headers.get(parts[3])
            self.answer(200, value.encode()) if value is not None else self.answer(404, b"<Error><Code>NoSuchKey</Code></Error>")
            return
        if len(parts) < 3 or not parts[2].endswith("-fails"):
            self.answer(404, b"<Error><Code>NoSuchKey</Code></Error>")
            return
        n = int(parts[2][: -len("-fails")])
        if failed.get(path, 0) < n:
            failed[path] = failed.get(path, 0) + 1
            self.answer(503, b"<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>")
            return
        self.answer(200, path.encode())

    def answer(self, status, body):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[1], "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()
