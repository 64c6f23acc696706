// tilefmt — an AWS profile from the shared files the AWS tools write:
// credentials from `~/.aws/credentials` (AWS_SHARED_CREDENTIALS_FILE), the
// region from `~/.aws/config` (AWS_CONFIG_FILE), for the profile
// AWS_PROFILE names (else AWS_DEFAULT_PROFILE, else "default"). The files
// are INI: `[name]` sections in the credentials file, `[profile name]` (or
// `[default]`) in the config file, `key = value` lines, `#` and `;`
// comments. s3_options::from_environment takes from here what the
// environment variables do not say.
#pragma once

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

namespace tilefmt::storage {

struct aws_profile {
  std::string access_key_id, secret_access_key, session_token, region;

  /// The profile `name` (empty: the one the environment names) from the
  /// shared files; what they do not hold is left empty. Files that are
  /// missing or unreadable hold nothing.
  static aws_profile from_files(std::string name = {}) {
    auto env = [](const char* v) -> std::string {
      const char* s = std::getenv(v);
      return s ? s : "";
    };
    if (name.empty()) name = env("AWS_PROFILE");
    if (name.empty()) name = env("AWS_DEFAULT_PROFILE");
    if (name.empty()) name = "default";
    const std::string home = env("HOME");
    std::string credentials = env("AWS_SHARED_CREDENTIALS_FILE"), config = env("AWS_CONFIG_FILE");
    if (credentials.empty() && !home.empty()) credentials = home + "/.aws/credentials";
    if (config.empty() && !home.empty()) config = home + "/.aws/config";
    aws_profile p;
    auto keys = section(credentials, name);
    p.access_key_id = keys["aws_access_key_id"];
    p.secret_access_key = keys["aws_secret_access_key"];
    p.session_token = keys["aws_session_token"];
    auto settings = section(config, name == "default" ? name : "profile " + name);
    p.region = settings["region"];
    // The config file may hold credentials too; the credentials file wins.
    if (p.access_key_id.empty()) {
      p.access_key_id = settings["aws_access_key_id"];
      p.secret_access_key = settings["aws_secret_access_key"];
      p.session_token = settings["aws_session_token"];
    }
    return p;
  }

  /// The `key = value` lines of section `[name]` of the INI file `file`.
  static std::map<std::string, std::string> section(const std::string& file, const std::string& name) {
    std::map<std::string, std::string> out;
    if (file.empty()) return out;
    std::ifstream in(file);
    std::string line;
    bool inside = false;
    auto trim = [](std::string s) {
      const auto b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
      return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    };
    while (std::getline(in, line)) {
      line = trim(line);
      if (line.empty() || line[0] == '#' || line[0] == ';') continue;
      if (line.front() == '[') {
        inside = line.back() == ']' && trim(line.substr(1, line.size() - 2)) == name;
        continue;
      }
      const auto eq = line.find('=');
      if (inside && eq != std::string::npos) out[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
    }
    return out;
  }
};

} // namespace tilefmt::storage
