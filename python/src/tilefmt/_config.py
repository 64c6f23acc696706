"""Storage options: where an s3:// array is and who signs the requests;
`threads`, how many threads decode an array's tiles (0, the default: one
per core the process may use; TileDB's name sm.compute_concurrency_level);
`io_concurrency`, how many requests are in flight while an array opens and
a query fetches its tiles (0, the default: 16 on S3; TileDB's name
vfs.s3.max_parallel_ops).

Every function that opens or writes an array takes ``config``: a dict
whose keys are tilefmt's short names or the names TileDB-Py users already
set in a ``tiledb.Config``. What it does not say comes from the usual AWS
environment variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
AWS_SESSION_TOKEN, AWS_REGION or AWS_DEFAULT_REGION, AWS_ENDPOINT_URL_S3 or
AWS_ENDPOINT_URL), read when the array is opened, and then from the shared
AWS files' profile (``~/.aws/credentials`` and ``~/.aws/config``; the
profile AWS_PROFILE names, or the config's ``profile``).
``no_sign_request`` sends requests unsigned (public buckets);
``requester_pays`` says the requester pays; ``sse`` ("aes256" or "kms",
with ``sse_kms_key_id``) encrypts what is written on the server;
``role_arn`` (with ``role_session_name``, ``role_external_id``,
``role_duration`` in seconds, ``sts_endpoint``) assumes a role through STS
and signs with its temporary credentials. For gs:// URIs: ``endpoint``,
``project``, ``token`` (an OAuth access token), ``service_account_key``
(a key's JSON text; else GOOGLE_APPLICATION_CREDENTIALS' file),
``anonymous`` (public buckets; an emulator's endpoint is spoken to
unsigned unless a token or key is given). ``ca_file`` /
``ca_path``: the certificate authorities of a service whose certificate a
private authority signed (else AWS_CA_BUNDLE, SSL_CERT_FILE, CURL_CA_BUNDLE,
SSL_CERT_DIR, then the system's bundle).
"""

import os

_SHORT = ("endpoint", "region", "access_key_id", "secret_access_key", "session_token", "path_style",
          "verify_tls", "retries", "threads", "io_concurrency", "no_sign_request", "profile", "ca_file", "ca_path",
          "requester_pays", "sse", "sse_kms_key_id", "role_arn", "role_session_name", "role_external_id",
          "role_duration", "sts_endpoint", "multipart_part_size", "project", "token", "service_account_key", "anonymous")

# TileDB's names for the same settings.
_TILEDB = {
    "vfs.s3.region": "region",
    "vfs.s3.aws_access_key_id": "access_key_id",
    "vfs.s3.aws_secret_access_key": "secret_access_key",
    "vfs.s3.aws_session_token": "session_token",
    "vfs.s3.verify_ssl": "verify_tls",
    # The certificate authorities of a service with a private one.
    "vfs.s3.ca_file": "ca_file",
    "vfs.s3.ca_path": "ca_path",
    # Unsigned requests: public buckets (the CELLxGENE Census is read so).
    "vfs.s3.no_sign_request": "no_sign_request",
    "vfs.s3.connect_max_tries": "retries",
    # Buckets whose readers pay; server-side encryption ("aes256", "kms").
    "vfs.s3.requester_pays": "requester_pays",
    "vfs.s3.sse": "sse",
    "vfs.s3.sse_kms_key_id": "sse_kms_key_id",
    # Files larger than a part go up in parts of this many bytes (>= 5 MiB).
    "vfs.s3.multipart_part_size": "multipart_part_size",
    # A role assumed through STS with the credentials at hand.
    "vfs.s3.aws_role_arn": "role_arn",
    "vfs.s3.aws_session_name": "role_session_name",
    "vfs.s3.aws_external_id": "role_external_id",
    "vfs.s3.aws_load_frequency": "role_duration",
    # Google Cloud Storage (gs:// URIs): the endpoint (with its scheme), the
    # project new buckets go to, a service account's key (the JSON text).
    "vfs.gcs.endpoint": "endpoint",
    "vfs.gcs.project_id": "project",
    "vfs.gcs.service_account_key": "service_account_key",
    "vfs.gcs.max_parallel_ops": "io_concurrency",
    # The threads that decode tiles (0: one per core), as TileDB's compute pool.
    "sm.compute_concurrency_level": "threads",
    # Requests in flight while opening an array and fetching tiles (0: 16 on S3).
    "vfs.s3.max_parallel_ops": "io_concurrency",
}


def path_of(uri):
    """The path the extension takes for `uri`: a ``file://`` URI (as TileDB
    gives a group's members) as its local path, anything else as it is."""
    uri = str(uri)
    return uri[len("file://"):] if uri.startswith("file://") else uri


def uri_of(path):
    """`path` as TileDB-Py names it: a local path as an absolute ``file://``
    URI, any other URI as it is."""
    path = str(path)
    return path if "://" in path else "file://" + os.path.abspath(path)


def _text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def normalize(config):
    """The options the extension takes (short names, values as text) from
    `config` (None, or a dict of short or TileDB names)."""
    if not config:
        return {}
    config = dict(config)
    out = {}
    # TileDB gives the endpoint without its scheme, and the scheme apart.
    scheme = str(config.pop("vfs.s3.scheme", "https"))
    if "vfs.s3.endpoint_override" in config:
        endpoint = str(config.pop("vfs.s3.endpoint_override"))
        if endpoint and "://" not in endpoint:
            endpoint = scheme + "://" + endpoint
        out["endpoint"] = endpoint
    if "vfs.s3.use_virtual_addressing" in config:
        v = config.pop("vfs.s3.use_virtual_addressing")
        out["path_style"] = _text(not (v is True or str(v).lower() == "true"))
    for k, v in config.items():
        name = _TILEDB.get(k, k)
        if name not in _SHORT:
            raise ValueError(f"tilefmt: unknown storage option {k!r} (known: {', '.join(_SHORT + tuple(_TILEDB))})")
        if name == "retries" and k == "vfs.s3.connect_max_tries":
            v = max(int(v) - 1, 0)  # TileDB counts the first try
        out[name] = _text(v).lower() if isinstance(v, bool) else _text(v)
    return out
