#!/usr/bin/env bash
# The S3 backend against a local S3 server (moto, from the Python package
# index, in a virtual environment cached under WORKDIR) that checks every
# request's AWS Signature V4 against credentials made for the test: the
# first four requests (an IAM user, its key, a policy, its attachment) go
# unsigned, every later one must be signed right (those users make a second
# user who may only assume a role, the role, and a KMS key) (and a second server,
# s3_flaky.py, fails on purpose for the retries). Then, with the interop
# venv's TileDB-Py (skipped when absent): TileDB-Py writes an array to the
# server, test_s3 (tests/storage/test_s3.cpp) reads it and writes its own,
# and TileDB-Py reads those (tests/storage/s3_tiledb.py). Exits 77 (skip)
# when moto cannot be installed (no package index).
#
#   s3_check.sh TEST_S3_EXE SOURCE_ROOT WORKDIR [TILEFMT_INSPECT]
#   s3_check.sh --prepare WORKDIR
#
# With TILEFMT_INSPECT, tilefmt-inspect reads TileDB-Py's array there too.
# --prepare only installs the server (downloads: scripts/test.sh runs it in
# the background while the first build compiles).
set -u
# install_moto WORKDIR: the server's virtual environment, once.
install_moto() {
  local venv=$1/moto-venv
  [ -x "$venv/bin/moto_server" ] && return 0
  mkdir -p "$1"
  python3 -m venv "$venv" || return 1
  PIP_CACHE_DIR=$1/pip-cache "$venv/bin/pip" install -q 'moto[server]' >"$1/pip.log" 2>&1 || {
    tail -5 "$1/pip.log"
    return 1
  }
}
if [ "${1:-}" = --prepare ]; then
  install_moto "$2"
  exit
fi
exe=$1
src=$2
work=$3
inspect=${4:-}
mkdir -p "$work"
venv=$work/moto-venv
install_moto "$work" || {
  echo "moto could not be installed: skipped"
  exit 77
}
port=$("$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
INITIAL_NO_AUTH_ACTION_COUNT=4 "$venv/bin/moto_server" -p "$port" >"$work/moto.log" 2>&1 &
server=$!
# A server answering 503 a given number of times, for the retries.
rm -f "$work/flaky.port"
python3 "$src/tests/storage/s3_flaky.py" "$work/flaky.port" &
flaky=$!
trap 'kill $server $flaky 2>/dev/null; wait $server $flaky 2>/dev/null' EXIT
export AWS_ENDPOINT_URL=http://127.0.0.1:$port AWS_REGION=us-east-1
for _ in $(seq 50); do
  "$venv/bin/python" -c "import urllib.request; urllib.request.urlopen('$AWS_ENDPOINT_URL/moto-api/')" 2>/dev/null && break
  sleep 0.2
done
keys=$("$venv/bin/python" - <<'PY'
import json, os
import boto3
kw = dict(endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1")
iam = boto3.client("iam", aws_access_key_id="setup", aws_secret_access_key="setup", **kw)
iam.create_user(UserName="tilefmt")
key = iam.create_access_key(UserName="tilefmt")["AccessKey"]
policy = iam.create_policy(PolicyName="s3", PolicyDocument=json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": ["s3:*", "iam:*", "kms:*"], "Resource": "*"}]}))
iam.attach_user_policy(UserName="tilefmt", PolicyArn=policy["Policy"]["Arn"])
own = dict(aws_access_key_id=key["AccessKeyId"], aws_secret_access_key=key["SecretAccessKey"], **kw)
s3 = boto3.client("s3", **own)
s3.create_bucket(Bucket="tilefmt-test")
# A user who may do nothing but assume the role "s3-user", which may use S3
# (for the backend's role_arn), and a KMS key (for sse aws:kms).
iam = boto3.client("iam", **own)
limited = iam.create_user(UserName="limited")["User"]
limited_key = iam.create_access_key(UserName="limited")["AccessKey"]
role = iam.create_role(RoleName="s3-user", AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"AWS": limited["Arn"]}, "Action": "sts:AssumeRole"}]}))["Role"]
iam.put_role_policy(RoleName="s3-user", PolicyName="s3", PolicyDocument=json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}))
iam.put_user_policy(UserName="limited", PolicyName="assume", PolicyDocument=json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole", "Resource": role["Arn"]}]}))
kms_key = boto3.client("kms", **own).create_key()["KeyMetadata"]["KeyId"]
print(key["AccessKeyId"], key["SecretAccessKey"], limited_key["AccessKeyId"], limited_key["SecretAccessKey"],
      role["Arn"], kms_key)
PY
) || { echo "could not set up the S3 server"; tail -20 "$work/moto.log"; exit 1; }
read -r AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY TILEFMT_S3_LIMITED_KEY TILEFMT_S3_LIMITED_SECRET \
  TILEFMT_S3_ROLE_ARN TILEFMT_S3_KMS_KEY <<<"$keys"
export TILEFMT_S3_LIMITED_KEY TILEFMT_S3_LIMITED_SECRET TILEFMT_S3_ROLE_ARN TILEFMT_S3_KMS_KEY
for _ in $(seq 50); do [ -s "$work/flaky.port" ] && break; sleep 0.1; done
export TILEFMT_S3_FLAKY_ENDPOINT=http://127.0.0.1:$(cat "$work/flaky.port")
export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY TILEFMT_S3_BUCKET=tilefmt-test TILEFMT_S3_VERIFIES_SIGNATURES=1
tiledb_py=${TILEFMT_INTEROP_DIR:-$src/build/interop}/venv/tiledb-0.36.1/bin/python
rc=0
if [ -x "$tiledb_py" ]; then
  "$tiledb_py" "$src/tests/storage/s3_tiledb.py" write s3://tilefmt-test/from_tiledb || rc=1
  export TILEFMT_S3_TILEDB_ARRAY=s3://tilefmt-test/from_tiledb
else
  echo "no TileDB-Py environment ($tiledb_py): the TileDB-Py steps are skipped"
fi
"$exe" || rc=1
# What test_s3 wrote with server-side encryption, as the server keeps it.
"$venv/bin/python" - <<'PY' || rc=1
import os
import boto3
s3 = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"], region_name="us-east-1")
aes = s3.head_object(Bucket="tilefmt-test", Key="sse/aes256")
kms = s3.head_object(Bucket="tilefmt-test", Key="sse/kms")
plain = s3.head_object(Bucket="tilefmt-test", Key="sse/none")
assert aes.get("ServerSideEncryption") == "AES256", aes
assert kms.get("ServerSideEncryption") == "aws:kms" and kms.get("SSEKMSKeyId") == os.environ["TILEFMT_S3_KMS_KEY"], kms
assert "ServerSideEncryption" not in plain, plain
print("server-side encryption: as asked (AES256, aws:kms with the key, none)")
PY
if [ -x "$tiledb_py" ] && [ -n "$inspect" ]; then
  want=$(printf 'a\n9\n12\n15')
  got=$("$inspect" s3://tilefmt-test/from_tiledb --query --range d 3 5)
  if [ "$got" = "$want" ]; then
    echo "tilefmt-inspect read s3://tilefmt-test/from_tiledb"
  else
    echo "tilefmt-inspect s3://tilefmt-test/from_tiledb --query --range d 3 5 printed:"
    echo "$got"
    rc=1
  fi
fi
if [ -x "$tiledb_py" ]; then
  "$tiledb_py" "$src/tests/storage/s3_tiledb.py" check s3://tilefmt-test || rc=1
fi
exit $rc
