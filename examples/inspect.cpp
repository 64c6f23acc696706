// tilefmt-inspect: what a TileDB array holds, without libtiledb.
//
//   tilefmt-inspect ARRAY                 schema, fragments, each field's filters, tiles, sizes
//   tilefmt-inspect ARRAY --json          the same as JSON
//   tilefmt-inspect ARRAY --values FIELD [N]   the first N decoded values of FIELD per fragment
//   tilefmt-inspect ARRAY --verify        decodes every tile of every field (checksums included)
//   --key HEX64 | --key-text TEXT         AES-256-GCM key of an encrypted array
//
// Exit status: 0 when everything read, 1 when a tile failed (named on stderr), 2 on usage errors.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <tilefmt/array/array.hpp>
#include <tilefmt/format/print.hpp>

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
  std::cerr << "usage: tilefmt-inspect ARRAY [--json] [--values FIELD [N]] [--verify] [--key HEX64 | --key-text TEXT]\n";
  return 2;
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
  bool json = false, do_verify = false;
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
      } else if (a == "--key" && i + 1 < argc) opt.encryption_key = parse_hex_key(argv[++i]);
      else if (a == "--key-text" && i + 1 < argc) {
        std::string k = argv[++i];
        opt.encryption_key.assign(k.begin(), k.end());
      } else if (!a.empty() && a[0] == '-') return usage();
      else path = a;
    }
    if (path.empty()) return usage();
    auto arr = array::open(path, opt);
    if (do_verify) return verify(arr);
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
