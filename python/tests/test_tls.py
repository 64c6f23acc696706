"""S3 over HTTPS where a private authority signs the server's certificate
(a company's MinIO, a proxy): a moto server with a certificate for
127.0.0.1 that a certificate authority made here signs. tilefmt verifies
the certificate against `ca_file` (TileDB's vfs.s3.ca_file, or the
AWS_CA_BUNDLE / SSL_CERT_FILE variables), refuses it without, and skips the
check only when told (`verify_tls` false); TileDB-Py reads what tilefmt
wrote through the same server and authority.
"""

import numpy as np
import pytest

import tilefmt
from conftest import TEST_AWS, certificates, environment, moto_server

pytest.importorskip("moto")
boto3 = pytest.importorskip("boto3")
x509 = pytest.importorskip("cryptography.x509")


@pytest.fixture(scope="module")
def https_s3(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tls")
    pem = certificates(folder)
    unset = dict.fromkeys(("AWS_CA_BUNDLE", "SSL_CERT_FILE", "CURL_CA_BUNDLE"))
    with environment(**TEST_AWS, **unset), \
            moto_server(folder, tls=(pem["server.pem"], pem["server.key"], pem["ca.pem"])) as endpoint:
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                     verify=pem["ca.pem"]).create_bucket(Bucket="private")
        # Written by tilefmt through HTTPS, verified against the authority.
        cfg = config(endpoint, ca_file=pem["ca.pem"])
        tilefmt.create(URI, tilefmt.Schema(domain=tilefmt.Domain(tilefmt.Dim("d", (0, 99), 10, np.int64)),
                                           attrs=[tilefmt.Attr("a", np.float64)]), config=cfg)
        with tilefmt.open(URI, "w", config=cfg) as A:
            A[0:100] = {"a": np.arange(100.0)}
        yield endpoint, pem["ca.pem"]


URI = "s3://private/written"


def config(endpoint, **more):
    return dict({"endpoint": endpoint, "region": "us-east-1", "path_style": True}, **more)


def test_https_with_the_authority_given(https_s3):
    endpoint, ca = https_s3
    uri = URI
    with tilefmt.open(uri, config=config(endpoint, ca_file=ca)) as A:
        np.testing.assert_array_equal(A[:]["a"], np.arange(100.0))
    # TileDB's name of the setting reads it too.
    tiledb_names = {"vfs.s3.endpoint_override": endpoint.replace("https://", ""), "vfs.s3.scheme": "https",
                    "vfs.s3.region": "us-east-1", "vfs.s3.use_virtual_addressing": "false", "vfs.s3.ca_file": ca}
    with tilefmt.open(uri, config=tiledb_names) as A:
        np.testing.assert_array_equal(A[:]["a"], np.arange(100.0))
    tiledb = pytest.importorskip("tiledb")
    with tiledb.open(uri, ctx=tiledb.Ctx(tiledb.Config(tiledb_names))) as T:
        np.testing.assert_array_equal(T[:]["a"], np.arange(100.0))


def test_https_refuses_an_unknown_authority_unless_told(https_s3):
    endpoint, ca = https_s3
    uri = URI
    with pytest.raises(Exception, match="(?i)certificate|SSL|TLS"):
        tilefmt.open(uri, config=config(endpoint, retries=0))
    with tilefmt.open(uri, config=config(endpoint, verify_tls=False)) as A:
        assert len(A[:]["a"]) == 100


@pytest.mark.parametrize("variable", ["AWS_CA_BUNDLE", "SSL_CERT_FILE"])
def test_https_authority_from_the_environment(https_s3, variable):
    endpoint, ca = https_s3
    with environment(**{variable: ca}), tilefmt.open(URI, config=config(endpoint)) as A:
        assert A[5]["a"] == 5.0
