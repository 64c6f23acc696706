// tilefmt-inspect: what a TileDB array or group holds, without libtiledb.
//
//   tilefmt-inspect ARRAY                 schema, fragments, each field's filters, tiles, sizes
//   tilefmt-inspect ARRAY --json          the same as JSON
//   tilefmt-inspect ARRAY --values FIELD [N]   the first N decoded values of FIELD per fragment
//   tilefmt-inspect ARRAY --verify        decodes every tile of every field (checksums included)
//   tilefmt-inspect ARRAY --query [--range DIM LO HI]... [--where "FIELD OP VALUE"]...
//                   [--attrs A,B] [--layout row|col|global|unordered] [--json]
//                                         reads a region across fragments (CSV, or JSON rows);
//                                         --where clauses are joined by "and"; OP is one of
//                                         < <= > >= == !=, VALUE a number or a string
//   tilefmt-inspect GROUP                 the group's tree: members (name, type, URI) and
//                                         metadata of every group in it
//   tilefmt-inspect GROUP --verify        the same, and every array in it verified
//   --key HEX64 | --key-text TEXT         AES-256-GCM key of an encrypted array
//
// ARRAY is a folder, or (built with libcurl) s3://bucket/path, reached with
// the AWS_* environment variables (AWS_ENDPOINT_URL for servers other than
// AWS; tilefmt/storage/s3.hpp).
//
// Exit status: 0 when everything read, 1 when a tile failed (named on stderr), 2 on usage errors.
#include <unistd.h>

#include <charconv>
#include <array>
#include <chrono>
#include <optional>
#include <set>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <tilefmt/array/read/array.hpp>
#include <tilefmt/array/read/query.hpp>
#include <tilefmt/format/print.hpp>
#include <tilefmt/group/group.hpp>
#ifdef TILEFMT_INSPECT_S3
#include <tilefmt/storage/s3.hpp>
#endif

namespace fs = std::filesystem;
using namespace tilefmt;

namespace {

struct field_stats {
  std::uint64_t stored = 0;
  std::uint64_t decoded = 0;
};

std::uint64_t stored_bytes(const array::array_reader& arr, const array::fragment& frag, const array::field_info& f) {
  std::uint64_t n = 0;
  for (auto which : {format::DataFile::fixed, format::DataFile::var, format::DataFile::validity})
    n += arr.storage().file_size(frag.path() / f.file_name(frag.format_version(), which)).value_or(0);
  return n;
}

std::string pipeline_words(const format::FilterPipeline& p, std::uint32_t version) {
  std::string s = format::pipeline_to_text(p, version);
  return s.empty() ? "(none)" : s;
}

void print_values(const array::fragment& frag, const std::string& name, std::size_t limit) {
  auto f = frag.field(name);
  std::size_t shown = 0;
  std::cout << "  " << frag.name().stem() << " " << name << ":";
  for (std::size_t t = 0; t < frag.tile_num() && shown < limit; ++t) {
    auto tile = frag.read_tile(f, t);
    const std::size_t cells = f.var() ? tile.offsets.size() : tile.values.size() / f.cell_size();
    for (std::size_t c = 0; c < cells && shown < limit; ++c, ++shown) {
      std::span<const std::byte> cell;
      if (f.var()) {
        std::uint64_t b = tile.offsets[c], e = c + 1 < cells ? tile.offsets[c + 1] : tile.values.size();
        cell = std::span<const std::byte>(tile.values).subspan(b, e - b);
      } else {
        cell = std::span<const std::byte>(tile.values).subspan(c * f.cell_size(), f.cell_size());
      }
      bool valid = tile.validity.empty() || tile.validity[c] != 0;
      std::cout << " " << (valid ? format::values_to_text(f.type, cell) : std::string("null"));
    }
  }
  std::cout << "\n";
}

class progress {
public:
  explicit progress(std::uint64_t total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  void step() {
    ++done_;
    auto now = std::chrono::steady_clock::now();
    // A bar only on a terminal, and only once the run has taken a second.
    if (!isatty(2) || now - start_ < std::chrono::seconds(1)) return;
    int pct = static_cast<int>(100 * done_ / (total_ ? total_ : 1));
    std::fprintf(stderr, "\r[%-40s] %3d%% %llu/%llu tiles", std::string(static_cast<std::size_t>(pct * 40 / 100), '#').c_str(),
                 pct, static_cast<unsigned long long>(done_), static_cast<unsigned long long>(total_));
    drawn_ = true;
  }
  ~progress() {
    if (drawn_) std::fprintf(stderr, "\n");
  }

private:
  std::uint64_t total_, done_ = 0;
  std::chrono::steady_clock::time_point start_;
  bool drawn_ = false;
};

int verify(const array::array_reader& arr) {
  std::uint64_t total = 0;
  for (const auto& frag : arr.fragments()) total += frag.tile_num() * frag.fields().size();
  progress bar(total);
  for (const auto& frag : arr.fragments()) {
    for (const auto& f : frag.fields()) {
      for (std::size_t t = 0; t < frag.tile_num(); ++t) {
        try {
          (void)frag.read_tile(f, t);
        } catch (const std::exception& e) {
          std::cerr << "tilefmt-inspect: bad tile: " << e.what() << "\n";
          return 1;
        }
        bar.step();
      }
    }
  }
  std::cout << "verified " << total << " tiles in " << arr.fragments().size() << " fragments: all decode\n";
  return 0;
}

/// A group's members and metadata, then each member group's the same way,
/// indented; with `verify`, each member array verified. A group is entered
/// once (a member may list an ancestor). Returns 1 when something failed.
int report_group(const fs::path& p, const array::open_options& opt, bool do_verify, std::set<std::string>& seen,
                 int depth = 0) {
  const std::string indent(static_cast<std::size_t>(depth) * 2, ' ');
  const auto g = group::open(p, opt);
  std::cout << indent << "Group " << p.string() << (g.legacy() ? " (before TileDB 2.8: members listed)" : "") << ", "
            << g.members().size() << " members, " << g.details_files().size() << " details files\n";
  if (g.metadata().size()) {
    std::istringstream lines(g.metadata().to_text());
    for (std::string line; std::getline(lines, line);) std::cout << indent << "  meta " << line << "\n";
  }
  int status = 0;
  for (const auto& m : g.members()) {
    std::cout << indent << "  " << (m.name ? *m.name : "(unnamed)") << " " << format::codec_enum_name(m.type) << " "
              << m.uri << (m.relative ? " (relative)" : "") << "\n";
    fs::path where;
    try {
      where = g.path_of(m);
    } catch (const group::member_error& e) {
      std::cout << indent << "    not followed: " << e.what() << "\n";
      continue;
    }
    if (group::object_type(g.storage(), where) != m.type) {
      std::cout << indent << "    " << where.string() << " holds " << format::codec_enum_name(group::object_type(g.storage(), where))
                << "\n";
      status = 1;
      continue;
    }
    if (m.type == format::ObjectType::GROUP) {
      if (!seen.insert(where.lexically_normal().string()).second) {
        std::cout << indent << "    (shown above)\n";
        continue;
      }
      status |= report_group(where, opt, do_verify, seen, depth + 2);
    } else if (m.type == format::ObjectType::ARRAY && do_verify) {
      std::cout << indent << "    ";
      status |= verify(array::open(where, opt));
    }
  }
  return status;
}

void report(const array::array_reader& arr, bool json) {
  const auto& s = arr.schema();
  std::ostringstream out;
  if (json) {
    out << "{\n\"array\": " << codec::json_string(arr.path().string()) << ",\n\"schema\": " << format::schema_to_json(s)
        << ",\n\"metadata\": " << arr.metadata().to_json() << ",\n\"fragments\": [";
  } else {
    out << "Array " << arr.path().string() << "\n\n" << format::schema_to_text(s) << "\n";
    if (arr.metadata().size()) out << "Metadata (" << arr.metadata().size() << " keys)\n" << arr.metadata().to_text() << "\n";
    out << "Fragments: " << arr.fragments().size() << "\n";
  }
  bool first_frag = true;
  for (const auto& frag : arr.fragments()) {
    const auto& fs_ = frag.schema();
    if (json) {
      out << (first_frag ? "" : ",") << "\n {\"name\": " << codec::json_string(frag.name().stem()) << ", \"format_version\": "
          << frag.format_version() << ", \"dense\": " << (frag.dense() ? "true" : "false")
          << ", \"timestamps\": [" << frag.timestamp_start() << ", " << frag.timestamp_end() << "], \"tiles\": "
          << frag.tile_num() << ", \"cells\": " << frag.cell_num() << ", \"fields\": [";
    } else {
      out << "\n  " << frag.name().stem() << "\n    format version " << frag.format_version() << ", "
          << (frag.dense() ? "dense" : "sparse") << ", " << frag.tile_num() << " tiles, " << frag.cell_num()
          << " cells, timestamps " << frag.timestamp_start() << ".." << frag.timestamp_end() << "\n";
    }
    bool first_field = true;
    // Attributes and dimensions, then the per-cell timestamps and delete
    // metadata of consolidated or deleted-from fragments.
    auto fields = frag.fields();
    for (auto& f : frag.special_fields()) fields.push_back(f);
    for (const auto& f : fields) {
      field_stats st;
      st.stored = stored_bytes(arr, frag, f);
      for (std::size_t t = 0; t < frag.tile_num(); ++t) {
        auto tile = frag.read_tile(f, t);
        st.decoded += tile.values.size() + tile.offsets.size() * 8 + tile.validity.size();
      }
      double ratio = st.stored ? static_cast<double>(st.decoded) / static_cast<double>(st.stored) : 0.0;
      std::string filters = pipeline_words(*f.filters, fs_.version.value);
      if (json) {
        out << (first_field ? "" : ",") << "\n   {\"name\": " << codec::json_string(f.name) << ", \"type\": \""
            << format::codec_enum_name(f.type) << "\", \"filters\": " << format::pipeline_to_json(*f.filters, fs_.version.value)
            << ", \"stored_bytes\": " << st.stored << ", \"decoded_bytes\": " << st.decoded << ", \"ratio\": " << ratio << "}";
      } else {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.2fx", ratio);
        const bool special = f.name.starts_with("__");
        out << "    " << (special ? "cell " : f.is_dimension() ? "dim  " : "attr ") << f.name << " " << format::codec_enum_name(f.type)
            << (f.var() ? " var" : "") << (f.nullable ? " nullable" : "") << ": " << filters << "; stored "
            << st.stored << " B, decoded " << st.decoded << " B (" << buf << ")\n";
      }
      first_field = false;
    }
    if (json) out << "]}";
    first_frag = false;
  }
  if (json) out << "\n]\n}\n";
  std::cout << out.str();
}

int usage() {
  std::cerr << "usage: tilefmt-inspect ARRAY|GROUP [--json] [--values FIELD [N]] [--verify] [--key HEX64 | --key-text TEXT]\n"
               "       tilefmt-inspect ARRAY --query [--range DIM LO HI]... [--where \"FIELD OP VALUE\"]... "
               "[--attrs A,B] [--layout row|col|global|unordered] [--json]\n";
  return 2;
}

// ---- --query ---------------------------------------------------------------------------

/// What --query was given.
struct query_args {
  std::vector<std::array<std::string, 3>> ranges;  // dimension, lo, hi
  std::vector<std::string> where;
  std::vector<std::string> attrs;
  array::query_layout layout = array::query_layout::row_major;
};

/// `text` as a number of type T, all of it, or an error naming `what`.
template <class T>
T parse_number(const std::string& text, const std::string& what) {
  T v{};
  const auto* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc{} || p != end) throw std::invalid_argument(what + ": \"" + text + "\" is not a " +
                                                                 (std::is_floating_point_v<T> ? "number" : "whole number") +
                                                                 " of the field's type");
  return v;
}

/// A field's datatype and whether it holds strings.
std::pair<format::Datatype, bool> field_type(const format::ArraySchema& s, const std::string& name) {
  for (const auto& d : s.domain.dimensions.value)
    if (d.name.value == name) return {d.type.value, d.is_var()};
  for (const auto& a : s.attributes.value)
    if (a.name.value == name) return {a.type, a.is_var()};
  throw std::invalid_argument("no field \"" + name + "\"");
}

/// "FIELD OP VALUE": VALUE read as the field's type (quotes around strings optional).
array::condition clause(const format::ArraySchema& s, const std::string& text) {
  std::istringstream in(text);
  std::string name, op, value;
  in >> name >> op;
  std::getline(in >> std::ws, value);
  if (name.empty() || op.empty()) throw std::invalid_argument("--where \"" + text + "\": FIELD OP VALUE");
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') && value.back() == value.front())
    value = value.substr(1, value.size() - 2);
  const auto [type, var] = field_type(s, name);
  array::field f(name);
  auto make = [&](const auto& v) -> array::condition {
    if (op == "<") return f < v;
    if (op == "<=") return f <= v;
    if (op == ">") return f > v;
    if (op == ">=") return f >= v;
    if (op == "==") return f == v;
    if (op == "!=") return f != v;
    throw std::invalid_argument("--where \"" + text + "\": OP is one of < <= > >= == !=");
  };
  if (var || type == format::Datatype::CHAR || format::is_string(type)) return make(value);
  std::optional<array::condition> out;
  format::visit_datatype(type, [&]<class T>() {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char>)
      out = make(parse_number<T>(value, "--where \"" + text + "\""));
  });
  if (!out) throw std::invalid_argument("--where \"" + text + "\": the field's values do not compare");
  return *out;
}

/// A CSV cell: strings quoted (quotes doubled), numbers as numbers (a
/// var-size cell of numbers as a quoted list).
std::string csv_cell(format::Datatype type, std::span<const std::byte> cell) {
  const bool text = type == format::Datatype::CHAR || format::is_string(type);
  std::string s = text ? std::string(reinterpret_cast<const char*>(cell.data()), cell.size())
                       : format::values_to_text(type, cell);
  if (!text && s.find(',') == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

int run_query(const array::array_reader& arr, const query_args& a, bool json) {
  const auto& schema = arr.schema();
  auto q = arr.query().layout(a.layout);
  for (const auto& r : a.ranges) {
    const std::string &dim = r[0], &lo = r[1], &hi = r[2];  // (lambdas below capture them)
    const auto type = field_type(schema, dim).first;
    const std::string what = "--range " + dim;
    bool added = false;
    if (type == format::Datatype::STRING_ASCII) {  // string dimensions: the bounds as given
      q.add_range(dim, std::string_view(lo), std::string_view(hi));
      continue;
    }
    format::visit_datatype(type, [&]<class T>() {
      if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char>) {
        q.add_range(dim, parse_number<T>(lo, what), parse_number<T>(hi, what));
        added = true;
      }
    });
    if (!added) throw std::invalid_argument(what + ": ranges of this dimension's type are not supported");
  }
  if (!a.where.empty()) {
    auto c = clause(schema, a.where.front());
    for (std::size_t i = 1; i < a.where.size(); ++i) c = c && clause(schema, a.where[i]);
    q.where(c);
  }
  if (!a.attrs.empty()) q.attributes(a.attrs);
  const auto r = q.read();
  const auto names = r.names();
  std::ostringstream out;
  if (!json) {
    for (std::size_t i = 0; i < names.size(); ++i) out << (i ? "," : "") << names[i];
    out << "\n";
  } else {
    out << "[";
  }
  for (std::uint64_t c = 0; c < r.cell_num(); ++c) {
    out << (json ? (c ? ",\n {" : "\n {") : "");
    for (std::size_t i = 0; i < names.size(); ++i) {
      const auto [type, var] = field_type(schema, names[i]);
      const auto& bytes = r.bytes(names[i]);
      std::span<const std::byte> cell;
      if (var) {
        const auto& off = r.byte_offsets(names[i]);
        const std::uint64_t end = c + 1 < off.size() ? off[c + 1] : bytes.size();
        cell = std::span<const std::byte>(bytes).subspan(off[c], end - off[c]);
      } else {
        const std::size_t size = bytes.size() / r.cell_num();
        cell = std::span<const std::byte>(bytes).subspan(c * size, size);
      }
      const auto* attr = schema.attribute(names[i]);
      const bool null = attr && attr->nullable.value && r.validity(names[i])[c] == 0;
      if (json)
        out << (i ? ", " : "") << codec::json_string(names[i]) << ": "
            << (null ? std::string("null") : format::values_to_text(type, cell, true));
      else
        out << (i ? "," : "") << (null ? std::string() : csv_cell(type, cell));
    }
    out << (json ? "}" : "\n");
  }
  if (json) out << "\n]\n";
  std::cout << out.str();
  return 0;
}

std::vector<std::uint8_t> parse_hex_key(const std::string& h) {
  std::vector<std::uint8_t> k;
  if (h.size() != 64) throw std::invalid_argument("--key needs 64 hex digits");
  for (std::size_t i = 0; i < 64; i += 2) k.push_back(static_cast<std::uint8_t>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return k;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  fs::path path;
  bool json = false, do_verify = false, do_query = false;
  query_args qa;
  std::string values_field;
  std::size_t values_n = 10;
  array::open_options opt;
  try {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--json") json = true;
      else if (a == "--verify") do_verify = true;
      else if (a == "--values" && i + 1 < argc) {
        values_field = argv[++i];
        if (i + 1 < argc && std::isdigit(static_cast<unsigned char>(argv[i + 1][0]))) values_n = std::stoul(argv[++i]);
      } else if (a == "--query") do_query = true;
      else if (a == "--range" && i + 3 < argc) {
        qa.ranges.push_back({argv[i + 1], argv[i + 2], argv[i + 3]});
        i += 3;
      } else if (a == "--where" && i + 1 < argc) qa.where.push_back(argv[++i]);
      else if (a == "--attrs" && i + 1 < argc) {
        std::istringstream names(argv[++i]);
        for (std::string n; std::getline(names, n, ',');) qa.attrs.push_back(n);
      } else if (a == "--layout" && i + 1 < argc) {
        const std::string l = argv[++i];
        using L = array::query_layout;
        if (l == "row") qa.layout = L::row_major;
        else if (l == "col") qa.layout = L::col_major;
        else if (l == "global") qa.layout = L::global_order;
        else if (l == "unordered") qa.layout = L::unordered;
        else return usage();
      } else if (a == "--key" && i + 1 < argc) opt.encryption_key = parse_hex_key(argv[++i]);
      else if (a == "--key-text" && i + 1 < argc) {
        std::string k = argv[++i];
        opt.encryption_key.assign(k.begin(), k.end());
      } else if (!a.empty() && a[0] == '-') return usage();
      else path = a;
    }
    if (path.empty()) return usage();
    if (path.native().starts_with("s3://")) {
#ifdef TILEFMT_INSPECT_S3
      opt.storage = std::make_shared<storage::s3>(storage::s3_options::from_environment());
#else
      std::cerr << "tilefmt-inspect: built without libcurl: no s3:// arrays\n";
      return 2;
#endif
    }
    if (group::object_type(*array::detail::or_local(opt.storage), path) == format::ObjectType::GROUP) {
      std::set<std::string> seen{path.lexically_normal().string()};
      return report_group(path, opt, do_verify, seen);
    }
    auto arr = array::open(path, opt);
    if (do_verify) return verify(arr);
    if (do_query) return run_query(arr, qa, json);
    if (!values_field.empty()) {
      for (const auto& frag : arr.fragments()) print_values(frag, values_field, values_n);
      return 0;
    }
    report(arr, json);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "tilefmt-inspect: " << e.what() << "\n";
    return 1;
  }
}
