// tilefmt WebAssembly module: the read side (arrays, queries, conditions,
// aggregates, metadata, groups, every filter but encryption) for
// JavaScript, through embind. The JavaScript API (web/tilefmt.mjs) wraps it;
// nothing else is meant to call it. Schemas, fragments and metadata cross
// as JSON text; query results as one Uint8Array per buffer (copied out of
// the module's memory, which the next call may reuse), typed by the caller.
//
// Every entry point catches tilefmt's exceptions and throws a JavaScript
// Error with their message, so a damaged array reads as it does natively:
// "<file>: <field> at byte <offset>: ...".
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/read/query.hpp"
#include "tilefmt/array/read/query_names.hpp"
#include "tilefmt/format/print.hpp"
#include "tilefmt/group/model/object.hpp"
#include "tilefmt/group/read/group.hpp"
#include "tilefmt/storage/s3_signature.hpp"

#include "js_storage.hpp"

namespace {

namespace ta = tilefmt::array;
namespace tf = tilefmt::format;
using emscripten::val;
using tilefmt_web::js_storage;

/// Runs `f`; a C++ exception becomes a JavaScript Error with its message
/// (named after its kind where a caller may want to tell them apart).
template <class F>
auto guarded(F&& f) -> decltype(f()) {
  std::string kind, message;
  try {
    return f();
  } catch (const tilefmt::format_error& e) {
    kind = "FormatError", message = e.what();
  } catch (const tilefmt::storage::io_error& e) {
    kind = "IOError", message = e.what();
  } catch (const std::exception& e) {
    kind = "Error", message = e.what();
  }
  val error = val::global("Error").new_(val(message));
  error.set("name", val("tilefmt." + kind));
  error.throw_();
}

/// A copy of `bytes` that JavaScript owns.
val to_js(std::span<const std::byte> bytes) {
  return val(emscripten::typed_memory_view(bytes.size(), reinterpret_cast<const unsigned char*>(bytes.data())))
      .call<val>("slice");
}

std::string quoted(const std::string& s) {
  std::ostringstream os;
  os << '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') os << '\\' << c;
    else if (c < 0x20) os << "\\u00" << "0123456789abcdef"[c >> 4] << "0123456789abcdef"[c & 15];
    else os << c;
  }
  os << '"';
  return os.str();
}

std::vector<std::byte> bytes_of(const val& v) {
  const auto s = v.as<std::string>();  // a Uint8Array or a string, as bytes
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}

/// A condition from the tree the JavaScript API builds (the Python
/// package's shape): ["and"|"or", [children]], ["not", child],
/// ["cmp", field, op, bytes or null, label], ["set", field, op, [bytes], label].
ta::condition condition_of(const val& t) {
  const auto kind = t[0].as<std::string>();
  if (kind == "and" || kind == "or") {
    const val children = t[1];
    const auto n = children["length"].as<unsigned>();
    if (n == 0) throw std::invalid_argument("tilefmt: empty condition");
    ta::condition c = condition_of(children[0]);
    for (unsigned i = 1; i < n; ++i)
      c = kind == "and" ? std::move(c) && condition_of(children[i]) : std::move(c) || condition_of(children[i]);
    return c;
  }
  if (kind == "not") return !condition_of(t[1]);
  auto field = t[1].as<std::string>();
  const auto op = t[2].as<std::string>();
  const bool label = t[4].isTrue();
  if (kind == "cmp") {
    std::optional<std::vector<std::byte>> value;
    if (!t[3].isNull() && !t[3].isUndefined()) value = bytes_of(t[3]);
    return ta::compare_bytes(std::move(field), op, std::move(value), label);
  }
  if (kind == "set") {
    std::vector<std::vector<std::byte>> values;
    const auto n = t[3]["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) values.push_back(bytes_of(t[3][i]));
    return ta::in_set_bytes(std::move(field), op, values, label);
  }
  throw std::invalid_argument("tilefmt: unknown condition node \"" + kind + "\"");
}

/// A query result as the JavaScript API takes it: {cells, names, fields:
/// {name: {values, offsets?, validity?}}}, each buffer a Uint8Array copy.
val result_to_js(const ta::query_result& r) {
  val fields = val::object();
  val names = val::array();
  for (const auto& name : r.names()) {
    val f = val::object();
    const auto& values = r.bytes(name);
    f.set("values", to_js({values.data(), values.size()}));
    if (r.var_size(name)) f.set("offsets", to_js(std::as_bytes(std::span(r.byte_offsets(name)))));
    if (r.nullable(name)) f.set("validity", to_js(std::as_bytes(std::span(r.validity(name)))));
    fields.set(name, f);
    names.call<void>("push", val(name));
  }
  val out = val::object();
  out.set("cells", val(static_cast<double>(r.cell_num())));
  out.set("names", names);
  out.set("fields", fields);
  return out;
}

/// A query read in parts: next() gives each part, then null.
class web_batches {
public:
  web_batches(std::shared_ptr<const ta::array_reader> arr, ta::query_batches b)
      : arr_(std::move(arr)), batches_(std::make_shared<ta::query_batches>(std::move(b))) {}
  val next() {
    return guarded([&] {
      auto part = batches_->next();
      return part ? result_to_js(*part) : val::null();
    });
  }

private:
  std::shared_ptr<const ta::array_reader> arr_;  // the batches read from it
  std::shared_ptr<ta::query_batches> batches_;
};

class web_array {
public:
  web_array(val source, const std::string& uri, const std::string& key, double t0, double t1) {
    guarded([&] {
      ta::open_options opt;
      opt.storage = std::make_shared<js_storage>(std::move(source));
      opt.encryption_key.assign(key.begin(), key.end());
      opt.timestamp_start = static_cast<std::uint64_t>(t0);
      if (t1 >= 0) opt.timestamp_end = static_cast<std::uint64_t>(t1);
      // One thread: no pthreads in this module (see scripts/wasm.sh).
      opt.threads = 1;
      opt.io_concurrency = 1;
      arr_ = std::make_shared<ta::array_reader>(uri, std::move(opt));
      return 0;
    });
  }

  std::string schema_json() const { return guarded([&] { return tf::schema_to_json(arr_->schema()); }); }
  std::string schema_text() const { return guarded([&] { return tf::schema_to_text(arr_->schema()); }); }

  std::string fragments_json() const {
    return guarded([&] {
      const auto& dims = arr_->schema().domain.dimensions.value;
      std::ostringstream os;
      os << '[';
      bool first = true;
      for (const auto& f : arr_->fragments()) {
        os << (first ? "" : ",") << "{\"name\":" << quoted(f.name().stem())
           << ",\"timestamp_range\":[" << f.timestamp_start() << ',' << f.timestamp_end() << ']'
           << ",\"version\":" << f.format_version() << ",\"sparse\":" << (f.dense() ? "false" : "true")
           << ",\"cell_num\":" << f.cell_num() << ",\"nonempty_domain\":[";
        const auto& ranges = f.non_empty_domain().ranges;
        for (std::size_t d = 0; d < ranges.size() && d < dims.size(); ++d)
          os << (d ? "," : "") << tf::detail::range_text(dims[d].type.value, dims[d].is_var(), ranges[d], true);
        os << "]}";
        first = false;
      }
      os << ']';
      return os.str();
    });
  }

  std::string metadata_json() const { return guarded([&] { return metadata_text(arr_->metadata()); }); }

  static std::string metadata_text(const ta::metadata_map& m) {
    std::ostringstream os;
    os << '{';
    bool first = true;
    for (const auto& [k, e] : m.entries()) {
      os << (first ? "" : ",") << quoted(k) << ":{\"type\":" << quoted(std::string(tf::codec_enum_name(e.type())))
         << ",\"values\":" << tf::values_to_text(e.type(), e.bytes(), true) << '}';
      first = false;
    }
    os << '}';
    return os.str();
  }

  /// spec: {ranges: [[[lo, hi], ...] per dimension], attributes: [names] or
  /// undefined, layout: "C"|"F"|"G"|"U", where: condition tree or undefined}.
  /// Bounds: numbers for float dimensions, decimal strings for integer ones
  /// (int64 exceeds a double), strings or Uint8Arrays for string ones.
  val read(val spec) const {
    return guarded([&] { return result_to_js(query_of(spec).read()); });
  }

  /// The same query's result in parts of about `bytes` each, in its
  /// layout's order (web_batches::next gives them).
  web_batches batches(val spec, double bytes) const;

  /// spec as read's, with what: [[op, field], ...]. Each answer: null, a
  /// number, a string, or {int: "decimal"} for a 64-bit integer.
  val aggregate(val spec) const {
    return guarded([&] {
      auto q = query_of(spec);
      std::vector<std::pair<ta::aggregate_op, std::string>> what;
      const val w = spec["what"];
      const auto n = w["length"].as<unsigned>();
      for (unsigned i = 0; i < n; ++i)
        what.emplace_back(ta::aggregate_named(w[i][0].as<std::string>()),
                          w[i][1].isUndefined() ? std::string() : w[i][1].as<std::string>());
      val out = val::array();
      for (const auto& v : q.aggregate(what)) {
        val x = std::visit(
            [](const auto& a) -> val {
              using T = std::decay_t<decltype(a)>;
              if constexpr (std::is_same_v<T, std::monostate>) return val::null();
              else if constexpr (std::is_same_v<T, double>) return val(a);
              else if constexpr (std::is_same_v<T, std::string>) return to_js(std::as_bytes(std::span(a)));
              else {
                val big = val::object();
                big.set("int", val(std::to_string(a)));
                return big;
              }
            },
            v);
        out.call<void>("push", x);
      }
      return out;
    });
  }

private:
  ta::query query_of(const val& spec) const {
    auto q = arr_->query();
    const auto& dims = arr_->schema().domain.dimensions.value;
    const val ranges = spec["ranges"];
    if (!ranges.isUndefined() && !ranges.isNull()) {
      const auto nd = ranges["length"].as<unsigned>();
      if (nd > dims.size()) throw std::invalid_argument("tilefmt: more ranges than dimensions");
      for (unsigned d = 0; d < nd; ++d) {
        const tf::Datatype t = dims[d].type.value;
        const val list = ranges[d];
        const auto nr = list["length"].as<unsigned>();
        for (unsigned i = 0; i < nr; ++i) {
          const val lo = list[i][0], hi = list[i][1];
          if (dims[d].is_var()) {
            const auto l = lo.as<std::string>(), h = hi.as<std::string>();
            q.add_range(d, std::string_view(l), std::string_view(h));
          } else if (tf::is_float(t)) {
            q.add_range(d, lo.as<double>(), hi.as<double>());
          } else if (t == tf::Datatype::UINT64) {
            q.add_range(d, std::stoull(lo.as<std::string>()), std::stoull(hi.as<std::string>()));
          } else {
            q.add_range(d, static_cast<std::int64_t>(std::stoll(lo.as<std::string>())),
                        static_cast<std::int64_t>(std::stoll(hi.as<std::string>())));
          }
        }
      }
    }
    const val attrs = spec["attributes"];
    if (attrs.isArray()) {
      std::vector<std::string> names;
      const auto n = attrs["length"].as<unsigned>();
      for (unsigned i = 0; i < n; ++i) names.push_back(attrs[i].as<std::string>());
      q.attributes(std::move(names));
    }
    const val layout = spec["layout"];
    if (layout.isString()) q.layout(ta::layout_named(layout.as<std::string>()));
    const val where = spec["where"];
    if (!where.isUndefined() && !where.isNull()) q.where(condition_of(where));
    return q;
  }

  std::shared_ptr<const ta::array_reader> arr_;
};

web_batches web_array::batches(val spec, double bytes) const {
  return guarded([&] {
    return web_batches(arr_, query_of(spec).batches(static_cast<std::uint64_t>(bytes)));
  });
}

std::string type_name(tf::ObjectType t) {
  return t == tf::ObjectType::ARRAY ? "array" : t == tf::ObjectType::GROUP ? "group" : "";
}

/// What is at `uri`: "array", "group" or "" (neither).
std::string object_type(val source, const std::string& uri) {
  return guarded([&] { return type_name(tilefmt::group::object_type(js_storage(std::move(source)), uri)); });
}

class web_group {
public:
  web_group(val source, const std::string& uri, const std::string& key) {
    guarded([&] {
      ta::open_options opt;
      opt.storage = std::make_shared<js_storage>(std::move(source));
      opt.encryption_key.assign(key.begin(), key.end());
      opt.threads = 1;
      opt.io_concurrency = 1;
      g_ = std::make_shared<tilefmt::group::group_reader>(uri, std::move(opt));
      return 0;
    });
  }
  /// [{name, uri, path, relative, type}]: name null where the member has
  /// none; path where the member is (relative URIs resolved).
  std::string members_json() const {
    return guarded([&] {
      std::ostringstream os;
      os << '[';
      bool first = true;
      for (const auto& m : g_->members()) {
        std::string where;
        try {
          where = quoted(g_->path_of(m).generic_string());
        } catch (const tilefmt::group::member_error&) {
          where = "null";  // a URI this storage cannot follow (another scheme)
        }
        os << (first ? "" : ",") << "{\"name\":" << (m.name ? quoted(*m.name) : "null") << ",\"uri\":" << quoted(m.uri)
           << ",\"path\":" << where << ",\"relative\":" << (m.relative ? "true" : "false")
           << ",\"type\":" << quoted(type_name(m.type)) << '}';
        first = false;
      }
      os << ']';
      return os.str();
    });
  }
  std::string metadata_json() const { return guarded([&] { return web_array::metadata_text(g_->metadata()); }); }

private:
  std::shared_ptr<const tilefmt::group::group_reader> g_;
};

/// The Authorization header of an S3 request the browser is about to send
/// (tilefmt_impl.js's s3Source): host, x-amz-content-sha256, x-amz-date
/// and, with a session token, x-amz-security-token are signed; the path and
/// query come encoded as they are sent.
std::string s3_authorization(std::string method, std::string host, std::string path, std::string query,
                             std::string amz_date, std::string session_token, std::string region,
                             std::string access_key_id, std::string secret_access_key) {
  namespace d = tilefmt::storage::detail;
  d::sigv4_request r{std::move(method), std::move(path), std::move(query),
                     {{"host", std::move(host)}, {"x-amz-content-sha256", "UNSIGNED-PAYLOAD"}, {"x-amz-date", amz_date}},
                     "UNSIGNED-PAYLOAD", amz_date};
  if (!session_token.empty()) r.headers.emplace_back("x-amz-security-token", std::move(session_token));
  return d::sigv4_authorization(std::move(r), {std::move(access_key_id), std::move(secret_access_key), std::move(region)});
}

} // namespace

EMSCRIPTEN_BINDINGS(tilefmt_core) {
  emscripten::class_<web_array>("Array")
      .constructor<val, std::string, std::string, double, double>()
      .function("schemaJSON", &web_array::schema_json)
      .function("schemaText", &web_array::schema_text)
      .function("fragmentsJSON", &web_array::fragments_json)
      .function("metadataJSON", &web_array::metadata_json)
      .function("read", &web_array::read)
      .function("batches", &web_array::batches)
      .function("aggregate", &web_array::aggregate);
  emscripten::class_<web_batches>("Batches").function("next", &web_batches::next);
  emscripten::class_<web_group>("Group")
      .constructor<val, std::string, std::string>()
      .function("membersJSON", &web_group::members_json)
      .function("metadataJSON", &web_group::metadata_json);
  emscripten::function("objectType", &object_type);
  emscripten::function("s3Authorization", &s3_authorization);
}
