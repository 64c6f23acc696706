import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.normpath(os.path.join(HERE, "..", "..", "tests", "data"))


def _keys(manifest, prefix=""):
    out = {}
    with open(manifest) as f:
        for a in json.load(f)["arrays"]:
            enc = a.get("encryption") or {}
            if enc.get("key"):
                out[prefix + a["path"]] = enc["key"]
    return out


@pytest.fixture(scope="session")
def data_dir():
    return DATA


@pytest.fixture(scope="session")
def data_keys():
    """Encryption keys of the committed arrays, by path relative to tests/data."""
    keys = {}
    for group in ("tiledb", "time_travel"):
        keys.update(_keys(os.path.join(DATA, group, "manifest.json"), group + "/"))
    return keys


# The credentials every test's local S3 server (moto) takes.
TEST_AWS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1"}


@contextlib.contextmanager
def environment(**values):
    """Environment variables set (None: unset) while the block runs, as
    they were afterwards."""
    saved = {k: os.environ.get(k) for k in values}

    def put(items):
        for k, v in items:
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    put(values.items())
    try:
        yield
    finally:
        put(saved.items())


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_serving(url, ca_file=None, tries=100):
    """Waits (up to `tries` tenths of a second) until `url` answers; HTTPS
    checked against `ca_file`."""
    import ssl
    context = ssl.create_default_context(cafile=ca_file) if ca_file else None
    for _ in range(tries):
        try:
            urllib.request.urlopen(url, context=context)
            return
        except OSError:
            time.sleep(0.1)


@contextlib.contextmanager
def moto_server(log_dir, env=None, tls=None):
    """A moto S3 server on 127.0.0.1, in a process of its own (TileDB-Py's
    reads hold the GIL, which an in-process server would need to answer
    them), its log in `log_dir`. Yields its endpoint; stopped on exit.
    `tls`: (certificate, key, CA file) PEM paths: HTTPS with that
    certificate."""
    port = free_port()
    log = open(os.path.join(str(log_dir), "moto.log"), "w")
    args = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    if tls:
        args += ["-c", tls[0], "-k", tls[1]]
    server = subprocess.Popen(args, stdout=log, stderr=log, env=dict(os.environ, **(env or {})))
    try:
        endpoint = "%s://127.0.0.1:%d" % ("https" if tls else "http", port)
        wait_until_serving(endpoint + "/moto-api/", tls[2] if tls else None)
        yield endpoint
    finally:
        server.terminate()
        server.wait()
        log.close()


def certificates(folder):
    """A CA and a server certificate for 127.0.0.1 that it signs, as PEM files
    in `folder`: {"ca.pem", "server.pem", "server.key"} -> path."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)

    def key_pem(key):
        return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                 serialization.NoEncryption())

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "tilefmt test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = {}
    for name, data in (("ca.pem", ca.public_bytes(serialization.Encoding.PEM)),
                       ("server.pem", cert.public_bytes(serialization.Encoding.PEM)), ("server.key", key_pem(key))):
        paths[name] = str(folder / name)
        with open(paths[name], "wb") as f:
            f.write(data)
    return paths
