// tilefmt._core: where an array or group is: the storage backend for a
// path and the options tilefmt/_config.py gives; a write's options.
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include <nanobind/nanobind.h>

#include "tilefmt/array/write/options.hpp"
#include "tilefmt/storage/gcs.hpp"
#include "tilefmt/storage/http.hpp"
#include "tilefmt/storage/s3.hpp"

namespace tilefmt_python {

/// Storage options from Python: names of s3_options fields to their values
/// as text (tilefmt/_array.py translates TileDB's "vfs.s3.*" names).
using config_map = std::map<std::string, std::string>;

/// The backend of http:// and https:// URLs (a static web host, read-only)
/// for `config` (verify_tls, ca_file, ca_path, retries); one per
/// configuration for the process, so that its connections and the listing
/// documents it read serve every object opened with it.
inline std::shared_ptr<tilefmt::storage::backend> web_storage(const config_map& config) {
  namespace st = tilefmt::storage;
  st::http_options o;
  for (const auto& [k, v] : config) {
    if (k == "threads" || k == "io_concurrency") continue;  // the reader's
    if (k == "verify_tls") o.verify_tls = v == "true" || v == "1";
    else if (k == "ca_file") o.ca_file = v;
    else if (k == "ca_path") o.ca_path = v;
    else if (k == "retries") o.retries = static_cast<unsigned>(std::stoul(v));
    else throw std::invalid_argument("tilefmt: option \"" + k + "\" does not apply to http(s):// URLs");
  }
  const std::string id = std::string(1, char('0' + o.verify_tls)) + '\n' + o.ca_file + '\n' + o.ca_path + '\n' +
                         std::to_string(o.retries);
  static std::mutex m;
  static std::map<std::string, std::shared_ptr<st::http>> backends;
  std::lock_guard lock(m);
  auto& b = backends[id];
  if (!b) b = std::make_shared<st::http>(std::move(o));
  return b;
}

/// The backend of gs:// and gcs:// URIs for `config` (endpoint, project,
/// token, service_account_key, anonymous, retries, verify_tls, ca_file,
/// ca_path) over what the environment says (gcs_options::from_environment);
/// one per configuration for the process.
inline std::shared_ptr<tilefmt::storage::backend> gcs_storage(const config_map& config) {
  namespace st = tilefmt::storage;
  auto o = st::gcs_options::from_environment();
  bool signer_given = false, anonymous_given = false;
  for (const auto& [k, v] : config) {
    if (k == "threads" || k == "io_concurrency") continue;  // the reader's
    const bool on = v == "true" || v == "1";
    if (k == "endpoint") o.endpoint = v;
    else if (k == "project") o.project = v;
    else if (k == "token") o.token = v, signer_given = !v.empty() || signer_given;
    else if (k == "service_account_key") o.service_account_key = v, signer_given = !v.empty() || signer_given;
    else if (k == "anonymous") o.anonymous = on, anonymous_given = true;
    else if (k == "verify_tls") o.verify_tls = on;
    else if (k == "ca_file") o.ca_file = v;
    else if (k == "ca_path") o.ca_path = v;
    else if (k == "retries") o.retries = static_cast<unsigned>(std::stoul(v));
    else throw std::invalid_argument("tilefmt: option \"" + k + "\" does not apply to gs:// URIs");
  }
  // As TileDB does: an endpoint of one's own (an emulator) is spoken to
  // unsigned unless a signer is given.
  if (!anonymous_given)
    o.anonymous = !signer_given && o.token.empty() && o.service_account_key.empty() &&
                  o.endpoint.find("storage.googleapis.com") == std::string::npos && !o.endpoint.empty();
  std::string id;
  for (const std::string* field : {&o.endpoint, &o.project, &o.token, &o.service_account_key, &o.ca_file, &o.ca_path})
    id += *field + '\n';
  id += std::string{char('0' + o.anonymous), char('0' + o.verify_tls)} + std::to_string(o.retries);
  static std::mutex m;
  static std::map<std::string, std::shared_ptr<st::gcs>> backends;
  std::lock_guard lock(m);
  auto& b = backends[id];
  if (!b) b = std::make_shared<st::gcs>(std::move(o));
  return b;
}

/// The backend for `path`: null (the local file system) unless it is an
/// s3:// path, then an S3 backend set up from the AWS environment variables
/// with `config` over them. One backend per configuration is kept for the
/// process, so that its pool of connections serves every array opened
/// with it (a Dask worker opens many).
inline std::shared_ptr<tilefmt::storage::backend> storage_for(const std::string& path, const config_map& config) {
  namespace st = tilefmt::storage;
  auto readers = [](const std::string& k) { return k == "threads" || k == "io_concurrency"; };  // the reader's, not the storage's
  const bool storage_options = std::any_of(config.begin(), config.end(), [&](const auto& kv) { return !readers(kv.first); });
  if (path.rfind("http://", 0) == 0 || path.rfind("https://", 0) == 0) return web_storage(config);
  if (path.rfind("gs://", 0) == 0 || path.rfind("gcs://", 0) == 0) return gcs_storage(config);
  if (path.rfind("s3://", 0) != 0) {
    if (storage_options && path.find("://") != std::string::npos)
      throw std::invalid_argument("tilefmt: only local paths, s3://, gs:// and http(s):// URIs are supported, not " + path);
    return {};
  }
  // A profile named in the config chooses the shared AWS files' profile.
  const auto named = config.find("profile");
  auto o = st::s3_options::from_environment(named == config.end() ? std::string() : named->second);
  auto flag = [](const std::string& k, const std::string& v) {
    if (v == "true" || v == "1") return true;
    if (v == "false" || v == "0") return false;
    throw std::invalid_argument("tilefmt: config \"" + k + "\" must be true or false, not \"" + v + "\"");
  };
  bool path_style_given = false;
  for (const auto& [k, v] : config) {
    if (readers(k)) continue;
    if (k == "endpoint") o.endpoint = v;
    else if (k == "region") o.region = v;
    else if (k == "access_key_id") o.access_key_id = v;
    else if (k == "secret_access_key") o.secret_access_key = v;
    else if (k == "session_token") o.session_token = v;
    else if (k == "path_style") o.path_style = flag(k, v), path_style_given = true;
    else if (k == "verify_tls") o.verify_tls = flag(k, v);
    else if (k == "no_sign_request") o.no_sign_request = flag(k, v);
    else if (k == "ca_file") o.ca_file = v;
    else if (k == "ca_path") o.ca_path = v;
    else if (k == "profile") continue;  // above
    else if (k == "retries") o.retries = static_cast<unsigned>(std::stoul(v));
    else if (k == "requester_pays") o.requester_pays = flag(k, v);
    else if (k == "sse") o.sse = v;
    else if (k == "sse_kms_key_id") o.sse_kms_key_id = v;
    else if (k == "role_arn") o.role_arn = v;
    else if (k == "role_session_name") o.role_session_name = v.empty() ? o.role_session_name : v;
    else if (k == "role_external_id") o.role_external_id = v;
    else if (k == "role_duration") o.role_duration = std::chrono::seconds(v.empty() ? 3600 : std::stol(v));
    else if (k == "sts_endpoint") o.sts_endpoint = v;
    else if (k == "multipart_part_size") o.multipart_part_size = std::stoull(v);
    else throw std::invalid_argument("tilefmt: unknown S3 option \"" + k + "\"");
  }
  // As from_environment does: a service other than AWS is addressed by path.
  if (!path_style_given) o.path_style = !o.endpoint.empty();
  std::string id;
  for (const std::string* field : {&o.endpoint, &o.region, &o.access_key_id, &o.secret_access_key, &o.session_token,
                                   &o.ca_file, &o.ca_path, &o.sse, &o.sse_kms_key_id, &o.role_arn, &o.role_session_name,
                                   &o.role_external_id, &o.sts_endpoint})
    id += *field + '\n';
  id += std::string{char('0' + o.path_style), char('0' + o.verify_tls), char('0' + o.no_sign_request),
                    char('0' + o.requester_pays)} +
        '\n' + std::to_string(o.retries) + '\n' + std::to_string(o.role_duration.count()) + '\n' +
        std::to_string(o.multipart_part_size);
  static std::mutex m;
  static std::map<std::string, std::shared_ptr<st::s3>> backends;
  std::lock_guard lock(m);
  auto& b = backends[id];
  if (!b) b = std::make_shared<st::s3>(std::move(o));
  return b;
}

/// Write options for `path`: its storage and, for an encrypted array, the
/// key.
inline tilefmt::array::write_options writing(const std::string& path, const nanobind::bytes& key, const config_map& config) {
  tilefmt::array::write_options opt;
  opt.storage = storage_for(path, config);
  opt.encryption_key.assign(reinterpret_cast<const std::uint8_t*>(key.c_str()),
                            reinterpret_cast<const std::uint8_t*>(key.c_str()) + key.size());
  // Uploads in flight while a fragment is committed, as requests while reading.
  if (const auto it = config.find("io_concurrency"); it != config.end())
    opt.io_concurrency = static_cast<unsigned>(std::stoul(it->second));
  return opt;
}

} // namespace tilefmt_python
