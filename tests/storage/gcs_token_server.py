#!/usr/bin/env python3
"""A stand-in for Google's OAuth 2.0 token endpoint, for the GCS backend's
service-account sign-in (test_gcs.cpp, run by gcs_check.sh):

    gcs_token_server.py PORT_FILE PUBLIC_KEY_PEM

POST /token (grant_type urn:ietf:params:oauth:grant-type:jwt-bearer): the
assertion's RS256 signature is checked with `openssl dgst -verify` against
PUBLIC_KEY_PEM and its claims (iss, aud, scope, iat, exp) against what a
service account sends; answers {"access_token": "token-<n>", "expires_in":
3600}, else 400 or 401 saying why.
GET /storage/v1/b/<bucket>/o/authorization?alt=media answers with the
request's Authorization header (what the backend sends objects' requests).
GET /issued answers with the number of tokens issued. It writes the port it
listens on to PORT_FILE.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

issued = 0


def unb64(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        global issued
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        form = urllib.parse.parse_qs(body)
        if self.path != "/token" or form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            return self.answer(400, {"error": "unsupported_grant_type"})
        header, claims, signature = form["assertion"][0].split(".")
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "in"), "w") as f:
                f.write(header + "." + claims)
            with open(os.path.join(d, "sig"), "wb") as f:
                f.write(unb64(signature))
            checked = subprocess.run(["openssl", "dgst", "-sha256", "-verify", sys.argv[2], "-signature",
                                      os.path.join(d, "sig"), os.path.join(d, "in")], capture_output=True)
        if checked.returncode != 0:
            return self.answer(401, {"error": "invalid_grant", "error_description": "bad signature"})
        h, c = json.loads(unb64(header)), json.loads(unb64(claims))
        now = time.time()
        good = (h.get("alg") == "RS256" and c.get("iss") == "reader@tilefmt-test.iam.gserviceaccount.com"
                and c.get("aud") == f"http://127.0.0.1:{self.server.server_address[1]}/token"
                and "devstorage" in c.get("scope", "") and c["iat"] - 60 <= now <= c["exp"] and c["exp"] - c["iat"] <= 3600)
        if not good:
            return self.answer(400, {"error": "invalid_grant", "error_description": "claims: " + json.dumps(c)})
        issued += 1
        self.answer(200, {"access_token": f"token-{issued}", "expires_in": 3600, "token_type": "Bearer"})

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/issued":
            return self.answer(200, issued)
        if path.endswith("/o/authorization"):
            value = (self.headers.get("Authorization") or "").encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(value)))
            self.end_headers()
            self.wfile.write(value)
            return
        self.answer(404, {"error": {"code": 404, "message": "Not Found"}})

    def answer(self, status, obj):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
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
