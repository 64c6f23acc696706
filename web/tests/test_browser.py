"""tilefmt's WebAssembly module and JavaScript API in headless Chromium (Debian's
chromium and chromium-driver, driven by selenium), reading the arrays of
tests/data over HTTP range requests from a server of this test's own on
127.0.0.1: every recorded query as TileDB-Py answered it, a damaged array's
error as Node's run of the same module gives it, and the inspector page.

    TILEFMT_WEB_DIST=build/wasm/dist python -m pytest web/tests   (scripts/web_test.sh)
"""

import contextlib
import functools
import math
import http.server
import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

import pytest

selenium = pytest.importorskip("selenium")
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.path.join(ROOT, "tests", "data")
DIST = os.environ.get("TILEFMT_WEB_DIST", os.path.join(ROOT, "build", "wasm", "dist"))



def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The listing tool, from the Python package's source (it needs nothing else),
# and the static server of web/serve.py.
listing = _load("tilefmt_web", os.path.join(ROOT, "python", "src", "tilefmt", "web.py"))
serve = _load("tilefmt_serve", os.path.join(ROOT, "web", "serve.py"))


def arrays():
    for group in ("tiledb", "time_travel"):
        with open(os.path.join(DATA, group, "manifest.json")) as f:
            for a in json.load(f)["arrays"]:
                yield f"{group}/{a['path']}"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site: /dist (module, API, inspector), /tests (these pages),
    /data (tests/data, with a listing document beside every array, and a
    damaged copy of one), served on 127.0.0.1."""
    if not os.path.exists(os.path.join(DIST, "tilefmt_core.wasm")):
        pytest.fail(f"no WebAssembly module in {DIST}: run scripts/wasm.sh")
    root = tmp_path_factory.mktemp("site")
    os.symlink(DIST, root / "dist")
    os.symlink(HERE, root / "tests")
    data = root / "data"
    for part in ("tiledb", "time_travel", "queries", "groups"):
        shutil.copytree(os.path.join(DATA, part), data / part)
    for a in arrays():
        listing.write_listing(str(data / a))
    listing.write_listing(str(data / "groups" / "experiment"))
    damaged = data / "damaged" / "array"
    shutil.copytree(data / "tiledb" / "dense_1d_int32" / "array", damaged)
    frag = sorted((damaged / "__fragments").iterdir())[0]
    meta = frag / "__fragment_metadata.tdb"
    meta.write_bytes(meta.read_bytes()[:-20])  # its footer cut short
    listing.write_listing(str(damaged))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(serve.RangeHandler, directory=str(root)))
    server.requests = []  # what the handler logs: (method, path, range)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield {"url": f"http://127.0.0.1:{server.server_address[1]}", "root": root, "server": server}
    server.shutdown()
    server.server_close()


@contextlib.contextmanager
def moto_server(**env):
    """A local S3 server (moto, on 127.0.0.1) for the fixture's life; its endpoint."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([os.path.join(os.path.dirname(sys.executable), "moto_server"), "-H", "127.0.0.1",
                               "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env={**os.environ, **env})
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait()


def allow_site(client, bucket, site):
    """A CORS rule that lets the site's pages read `bucket`."""
    client.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [{
        "AllowedOrigins": [site["url"]], "AllowedMethods": ["GET", "HEAD"], "AllowedHeaders": ["*"],
        "ExposeHeaders": ["Content-Range", "Content-Length"]}]})


def upload(client, bucket, site, parts):
    data = site["root"] / "data"
    for part in parts:
        for folder, _, files in os.walk(data / part):
            for f in files:
                full = os.path.join(folder, f)
                client.upload_file(full, bucket, os.path.relpath(full, data).replace(os.sep, "/"))


@pytest.fixture(scope="module")
def s3(site):
    """A local S3 server whose public bucket "data" holds the site's arrays,
    with a CORS rule that lets the site's pages read it."""
    boto3 = pytest.importorskip("boto3")
    with moto_server() as endpoint:
        c = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="test",
                         aws_secret_access_key="test")
        c.create_bucket(Bucket="data")
        # Public, as the buckets of open datasets are: anyone may list and read.
        c.put_bucket_policy(Bucket="data", Policy=json.dumps({"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Principal": "*", "Action": ["s3:GetObject", "s3:ListBucket"],
             "Resource": ["arn:aws:s3:::data", "arn:aws:s3:::data/*"]}]}))
        allow_site(c, "data", site)
        upload(c, "data", site, ("tiledb", "time_travel"))
        yield endpoint


class PreflightProxy(http.server.BaseHTTPRequestHandler):
    """Forwards requests to moto as they came (Host included, so signatures
    stay valid) and answers CORS preflights itself: moto checks signatures on
    OPTIONS too, which S3 does not, and a browser never signs a preflight."""

    protocol_version = "HTTP/1.1"
    upstream = None  # (host, port)

    def log_message(self, *args):
        pass

    def do_OPTIONS(self):
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", self.headers.get("Origin", "*"))
        self.send_header("Access-Control-Allow-Methods", "GET, HEAD")
        self.send_header("Access-Control-Allow-Headers", self.headers.get("Access-Control-Request-Headers", ""))
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        import http.client
        conn = http.client.HTTPConnection(*self.upstream, timeout=30)
        conn.request(self.command, self.path, headers=dict(self.headers.items()))
        answer = conn.getresponse()
        body = answer.read()
        self.send_response(answer.status)
        for k, v in answer.getheaders():
            if k.lower() not in ("content-length", "connection", "transfer-encoding", "server", "date"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        conn.close()

    do_HEAD = do_GET


@pytest.fixture(scope="module")
def private_s3(site):
    """A local S3 server that checks every request's AWS Signature V4 against
    the credentials it made (moto: its first four requests, which make an
    IAM user, a key and a policy, go unchecked), with a private bucket
    "private" holding one array and a CORS rule for the site, reached through
    PreflightProxy."""
    boto3 = pytest.importorskip("boto3")
    with moto_server(INITIAL_NO_AUTH_ACTION_COUNT="4") as endpoint:
        kw = dict(endpoint_url=endpoint, region_name="us-east-1")
        iam = boto3.client("iam", aws_access_key_id="setup", aws_secret_access_key="setup", **kw)
        iam.create_user(UserName="reader")
        key = iam.create_access_key(UserName="reader")["AccessKey"]
        policy = iam.create_policy(PolicyName="s3", PolicyDocument=json.dumps(
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
        iam.attach_user_policy(UserName="reader", PolicyArn=policy["Policy"]["Arn"])
        c = boto3.client("s3", aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"], **kw)
        c.create_bucket(Bucket="private")
        allow_site(c, "private", site)
        upload(c, "private", site, ("tiledb/dense_1d_int32",))
        upstream = urllib.parse.urlsplit(endpoint)
        handler = type("Proxy", (PreflightProxy,), {"upstream": (upstream.hostname, upstream.port)})
        proxy = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=proxy.serve_forever, daemon=True).start()
        try:
            yield {"endpoint": f"http://127.0.0.1:{proxy.server_address[1]}",
                   "credentials": {"accessKeyId": key["AccessKeyId"], "secretAccessKey": key["SecretAccessKey"]}}
        finally:
            proxy.shutdown()
            proxy.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    options = webdriver.ChromeOptions()
    # Every request the browser sends, the page's Workers' included, is in
    # its NetLog (read by requested_origins()).
    netlog = tmp_path_factory.mktemp("netlog") / "net.json"
    options.add_argument(f"--log-net-log={netlog}")
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900",
                # Nothing but the test's own server is reachable.
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    driver.netlog = {"path": netlog, "offset": 0, "types": None}
    yield driver
    driver.quit()


def requested_origins(browser, site):
    """The origins of the requests the site's pages and their Workers sent
    since the last call: the URL_REQUEST_START_JOB events of Chromium's
    NetLog whose initiator is the site (the browser's own requests, such as
    its update checks, have none, and the host resolver rule fails them)."""
    log = browser.netlog
    with open(log["path"], "rb") as f:
        f.seek(log["offset"])
        text = f.read()
    text = text[:text.rfind(b"\n") + 1]  # whole lines only: the log is being written
    log["offset"] += len(text)
    origins = set()
    for line in text.decode().splitlines():
        line = line.rstrip(",")
        if line.startswith('{"constants":'):
            log["types"] = json.loads(line[len('{"constants":'):])["logEventTypes"]
            continue
        if not line.startswith("{") or log["types"] is None:
            continue
        event = json.loads(line)
        params = event.get("params", {})
        if event["type"] == log["types"]["URL_REQUEST_START_JOB"] and params.get("initiator") == site["url"]:
            u = urllib.parse.urlsplit(params["url"])
            origins.add(f"{u.scheme}://{u.netloc}")
    return origins


def run_suite(browser, site, suite, timeout=300, **params):
    query = urllib.parse.urlencode({"suite": suite, **params})
    requested_origins(browser, site)  # the log so far: dropped
    browser.get(f"{site['url']}/tests/browser.html?{query}")
    WebDriverWait(browser, timeout).until(lambda d: d.execute_script("return window.__result"))
    return browser.execute_script("return window.__result")


def recorded_values(count):
    """The first `count` values of attribute a of tiledb/dense_1d_int32, as
    TileDB-Py read them (tests/data/queries/dense.txt)."""
    with open(os.path.join(DATA, "queries", "dense.txt")) as f:
        text = f.read()
    want = re.search(r"^query tiledb/dense_1d_int32/array C 1:100\nattr a 100 ([0-9a-f]+)", text, re.M).group(1)
    return [int.from_bytes(bytes.fromhex(want[8 * i:8 * i + 8]), "little", signed=True) for i in range(count)]


BOX = json.dumps({"ranges": [[[1, 10]]], "attributes": ["a"]})


def test_recorded_queries(browser, site):
    """Every recorded query answers in Chromium as TileDB-Py answered it (an
    encrypted array is refused: this build has no AES)."""
    r = run_suite(browser, site, "recorded")
    assert "error" not in r, r
    assert r["failed"] == []
    assert r["passed"] == r["total"] == 1083


def test_recorded_queries_from_s3(browser, site, s3):
    """The same queries on the same arrays in a bucket of a local S3 server:
    listed with ListObjectsV2, read with ranged GETs across origins (CORS)."""
    r = run_suite(browser, site, "recorded", s3=s3)
    assert "error" not in r, r
    assert r["failed"] == []
    assert r["passed"] == r["total"] == 1083
    assert requested_origins(browser, site) == {site["url"], s3}


def test_one_array_values_and_requests(browser, site):
    """A box of a dense array: the values the native reader reads (the
    recorded query of the same box), fetched in few range requests, and no
    request to any origin but the site's."""
    before = len(site["server"].requests)
    r = run_suite(browser, site, "one", array="tiledb/dense_1d_int32/array", query=BOX)
    assert r["cells"] == 10
    assert r["fields"]["a"] == recorded_values(10)
    assert "ArraySchema" in r["schema"] or "dense" in r["schema"].lower()
    seen = site["server"].requests[before:]
    ranged = [x for x in seen if x[2]]
    assert 0 < r["requests"] == len(ranged) <= 12, seen
    assert any(p.endswith(".tilefmt-listing") for _, p, _ in seen)
    assert requested_origins(browser, site) == {site["url"]}


def test_module_worker(browser, site):
    """The API imported by a module Worker of the page's own: the module runs
    in that Worker (fetched and started there) and answers as on the page."""
    r = run_suite(browser, site, "moduleWorker", array="tiledb/dense_1d_int32/array", query=BOX)
    assert "error" not in r, r
    assert r["inWorker"] and r["cells"] == 10 and r["fields"]["a"] == recorded_values(10)
    assert r["requests"] > 0
    assert requested_origins(browser, site) == {site["url"]}


def test_picked_folder(browser, site):
    """A folder picked in a directory input (openFiles): read from the File
    objects with no request for its bytes."""
    query = urllib.parse.urlencode({"suite": "picked", "query": BOX})
    before = len(site["server"].requests)
    browser.get(f"{site['url']}/tests/browser.html?{query}")
    WebDriverWait(browser, 60).until(lambda d: d.execute_script("return document.getElementById('pick')"))
    browser.find_element("id", "pick").send_keys(str(site["root"] / "data" / "tiledb" / "dense_1d_int32" / "array"))
    WebDriverWait(browser, 120).until(lambda d: d.execute_script("return window.__result"))
    r = browser.execute_script("return window.__result")
    assert "error" not in r, r
    assert (r["type"], r["url"]) == ("array", "array")
    assert r["cells"] == 10 and r["fields"]["a"] == recorded_values(10)
    assert not [p for _, p, _ in site["server"].requests[before:] if p.startswith("/data/")]


def test_private_bucket(browser, site, private_s3):
    """A private bucket read with credentials: every request (listing and
    ranged GETs, across origins) signed by the module with AWS Signature V4
    and checked by the server; a wrong secret and no credentials refused."""
    s3 = dict(s3=private_s3["endpoint"], bucket="private", array="tiledb/dense_1d_int32/array")
    creds = private_s3["credentials"]
    r = run_suite(browser, site, "one", query=BOX, credentials=json.dumps(creds), **s3)
    assert "error" not in r, r
    assert r["cells"] == 10 and r["fields"]["a"] == recorded_values(10)
    assert requested_origins(browser, site) == {site["url"], private_s3["endpoint"]}
    wrong = run_suite(browser, site, "damaged", credentials=json.dumps({**creds, "secretAccessKey": "x" * 40}), **s3)
    assert wrong["error"]["name"] == "tilefmt.IOError", wrong
    assert "HTTP 403" in wrong["error"]["message"] and "SignatureDoesNotMatch" in wrong["error"]["message"], wrong
    # Unsigned: refused (S3 answers 403; moto fails the request, which the
    # browser reports as a network error without CORS headers).
    anonymous = run_suite(browser, site, "damaged", **s3)
    assert anonymous["error"]["name"] == "tilefmt.IOError", anonymous
    assert "listing the bucket" in anonymous["error"]["message"], anonymous


def test_batches_through_the_worker(browser, site):
    """A 48 x 64 float64 array read in parts of 4 KiB through the page's
    Worker: the parts, put together, are the whole query's result."""
    r = run_suite(browser, site, "batches", array="groups/experiment/image", bytes="4096",
                  query=json.dumps({"attributes": ["v"], "layout": "C"}))
    assert r["parts"] >= 6 and r["cells"] == r["whole"] == 48 * 64 and r["same"], r


def test_damaged_array_error(browser, site):
    """A fragment metadata file cut short: the error Node's run of the module
    gives for the same bytes, naming the file and the field."""
    r = run_suite(browser, site, "damaged", array="damaged/array")
    err = r["error"]
    assert err and err["name"] == "tilefmt.FormatError", r
    assert "__fragment_metadata.tdb" in err["message"]
    node = subprocess.run(
        ["node", "--input-type=module", "-e",
         "const t = await import(process.argv[1]); try { await (await t.open(process.argv[2])).query({}); "
         "console.log('null'); } catch (e) { console.log(JSON.stringify({name: e.name, message: e.message})); }",
         os.path.join(DIST, "tilefmt.mjs"), str(site["root"] / "data" / "damaged" / "array")],
        capture_output=True, text=True, check=True)
    in_node = json.loads(node.stdout)
    local_prefix = str(site["root"] / "data")
    assert err["name"] == in_node["name"]
    message = err["message"].replace(f"{site['url']}/data", "")
    assert message == in_node["message"].replace(local_prefix, "")
    # The native reader (the Python package, where scripts/web_test.sh finds
    # its venv) says the same of the same bytes.
    native_python = os.environ.get("TILEFMT_NATIVE_PYTHON")
    if native_python:
        native = subprocess.run(
            [native_python, "-c", "import sys, tilefmt\ntry:\n    tilefmt.open(sys.argv[1])[:]\nexcept Exception as e:\n"
             "    print(e)", str(site["root"] / "data" / "damaged" / "array")],
            capture_output=True, text=True, check=True)
        assert message == native.stdout.strip().replace(local_prefix, "")


def node(*args):
    """A Node process with the built module (TILEFMT_WEB_DIST); its output."""
    done = subprocess.run(["node", *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "TILEFMT_WEB_DIST": DIST})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_node_over_http(site):
    """Node reads URLs too (synchronous requests through a helper thread):
    every recorded query on the site's arrays, over HTTP range requests."""
    before = len(site["server"].requests)
    r = json.loads(node(os.path.join(HERE, "recorded_node.mjs"), f"{site['url']}/data"))
    assert r["failed"] == [] and r["passed"] == r["total"] == 1083, r["failed"][:5]
    assert any(x[2] for x in site["server"].requests[before:])  # ranged reads, not local files


def test_node_private_bucket(private_s3):
    """Node signs its S3 requests as the browser does: a private bucket read
    with credentials, refused with a wrong secret."""
    script = ("const t = await import(process.argv[1]); const o = JSON.parse(process.argv[2]); "
              "try { const a = await t.open('s3://private/tiledb/dense_1d_int32/array', o); "
              "const r = await a.query(JSON.parse(process.argv[3])); console.log(JSON.stringify(Array.from(r.fields.a.values))); "
              "} catch (e) { console.log(JSON.stringify({name: e.name, message: e.message})); }")
    creds = private_s3["credentials"]
    options = {"endpoint": private_s3["endpoint"], "credentials": creds}
    got = json.loads(node("--input-type=module", "-e", script, os.path.join(DIST, "tilefmt.mjs"), json.dumps(options), BOX))
    assert got == recorded_values(10)
    options["credentials"] = {**creds, "secretAccessKey": "x" * 40}
    wrong = json.loads(node("--input-type=module", "-e", script, os.path.join(DIST, "tilefmt.mjs"), json.dumps(options), BOX))
    assert wrong["name"] == "tilefmt.IOError" and "SignatureDoesNotMatch" in wrong["message"], wrong


def open_inspector(browser, site, **params):
    browser.get(f"{site['url']}/dist/index.html?{urllib.parse.urlencode(params)}")
    WebDriverWait(browser, 120).until(lambda d: d.execute_script(
        "return window.inspector && window.inspector.ready && (window.__ok = window.__ok || "
        "window.inspector.ready.then(() => (window.__opened = true))) && window.__opened"))
    return browser


def test_inspector_group(browser, site):
    """The inspector opens the committed group (tests/data/groups, written by
    TileDB-Py): its members and metadata, then a member's schema."""
    open_inspector(browser, site, url="/data/groups/experiment")
    text = browser.find_element("id", "members").text
    for name in ("image", "points", "more"):
        assert name in text
    assert "tilefmt browser test" in browser.find_element("id", "metadata").text
    assert "group of 3 members" in browser.find_element("id", "status").text
    open_inspector(browser, site, url="/data/groups/experiment", member="points")
    schema = browser.find_element("id", "schema").text
    assert "label" in schema and "STRING_UTF8" in schema


def test_inspector_heatmap(browser, site, tmp_path):
    """The heatmap of the group's image (48 x 64 float64 cells): every cell's
    pixels have the colour of its value, which is the pattern TileDB-Py
    wrote (tests/interop/make_web_group.py), rows down."""
    open_inspector(browser, site, url="/data/groups/experiment", member="image", heatmap="1", attr="v",
                   region="[[1, 48], [1, 64]]")
    assert "3072 cells" in browser.find_element("id", "heat-status").text
    h = browser.execute_script("const s = window.inspector.state.heatmap; return {rows: s.rows, cols: s.cols, k: s.k};")
    assert (h["rows"], h["cols"]) == (48, 64)
    k = h["k"]
    pixels = browser.execute_script(
        "const c = document.getElementById('heatmap'); "
        "return Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data);")
    width = 64 * k
    want = [[math.sin(x / 9.0) * math.cos(y / 7.0) + y / 48.0 for x in range(1, 65)] for y in range(1, 49)]
    lo = min(min(r) for r in want)
    hi = max(max(r) for r in want)
    # The colour scale, sampled in Python: viridis at five points (inspector.mjs).
    anchors = [(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)]
    bad = 0
    for y in range(48):
        for x in range(64):
            t = (want[y][x] - lo) / (hi - lo)
            p = ((y * k + k // 2) * width + x * k + k // 2) * 4
            got = pixels[p:p + 4]
            s = min(1.0, max(0.0, t)) * 4
            i = min(3, int(s))
            f = s - i
            expect = [round(anchors[i][c] + (anchors[i + 1][c] - anchors[i][c]) * f) for c in range(3)]
            if got[3] != 255 or any(abs(got[c] - expect[c]) > 1 for c in range(3)):
                bad += 1
    assert bad == 0
    browser.execute_script("document.getElementById('heatmap').scrollIntoView()")
    browser.save_screenshot(str(tmp_path / "inspector.png"))
    assert (tmp_path / "inspector.png").stat().st_size > 1000
