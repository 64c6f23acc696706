// Crash safety and concurrency of the writer, checked by reading back.
//
//   crash-writer torture WORK [--seed S] [--kills N] [--seconds T] [--rotate R] [--checker CMD]...
//       Writes dense and sparse fragments in a child process and kills it
//       with SIGKILL at points of commit, N times (or until T seconds have
//       passed): the delays come from the seed, and every third kill is the
//       child killing itself just before or after one of the storage calls
//       of a commit (make a folder, write a file). After each kill the array
//       must open, every fragment committed before must read back as
//       written, and the interrupted fragment must be listed complete or not
//       at all. Every R kills the arrays start afresh (bounds the work per
//       check). The child writes without fsync (a killed process loses
//       nothing the page cache holds; fsync matters for power failures,
//       which no test here makes), so that a busy disk slows it less.
//   crash-writer concurrent WORK [--writers W] [--fragments F] [--checker CMD]...
//       W processes commit F fragments each into the same two arrays at the
//       same moments (a barrier before each commit, so that names share
//       milliseconds); every fragment must land and read back.
//   crash-writer readers WORK [--seconds T] [--threads N]
//       A child commits fragments in a loop while N threads open the arrays
//       and read the newest fragment over and over: every open succeeds, the
//       fragment list only grows, and what is listed reads back as written.
//   crash-writer leftovers WORK
//       What a killed writer can leave (temporary files, fragment folders
//       without a commit marker, a marker's temporary file) does not stop
//       the arrays from opening or change what they list.
//   crash-writer check DENSE SPARSE [--bands B]
//       The tilefmt check alone, on arrays written by the modes above.
//
// A fragment's cells are a function of the random label in its name (and
// of the band of the domain its writer was given), so a checker recomputes
// them from what it lists: tests/array/programs/crash_check.py does the same with
// TileDB-Py. A --checker command is started once and then answers one line
// per request on its standard output (see crash_check.py).
//
// Exit status: 0 when every check passed, 1 otherwise.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tilefmt/array/read/array.hpp"
#include "tilefmt/array/write.hpp"
#include "tilefmt/array/write/new_files.hpp"
#include "tilefmt/filter/bitshuffle.hpp"
#include "tilefmt/filter/byteshuffle.hpp"
#include "tilefmt/filter/lz4.hpp"
#include "tilefmt/filter/zstd.hpp"

#include "../../support/forwarding_backend.hpp"

using namespace tilefmt;
namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

namespace {

// ------------------------------------------------------------------ cells
// Kept in step with crash_check.py.

std::uint64_t splitmix64(std::uint64_t x) {
  std::uint64_t z = x + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The seed of a fragment: its label's two halves, mixed.
std::uint64_t seed_of(const std::string& label) {
  if (label.size() != 32) throw std::runtime_error("label " + label + " is not 32 hex digits");
  const std::uint64_t hi = std::stoull(label.substr(0, 16), nullptr, 16);
  const std::uint64_t lo = std::stoull(label.substr(16), nullptr, 16);
  return splitmix64(hi ^ splitmix64(lo));
}

constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz";

/// A cell's string: (h >> 40) & 7 letters from letter ((h >> 32) & 255) % 26 on.
std::string cell_string(std::uint64_t h) {
  const std::size_t len = (h >> 40) & 7, from = ((h >> 32) & 255) % 26;
  std::string s;
  for (std::size_t j = 0; j < len; ++j) s += alphabet[(from + j) % 26];
  return s;
}
double cell_double(std::uint64_t h) { return static_cast<double>(h >> 11) * 0x1p-53; }

// Dense: rows and cols 1..1024 in tiles of 64 (16 x 16 tiles); a fragment
// covers 2 x 8 whole tiles (65536 cells) inside its band of tile rows.
constexpr std::int64_t dense_side = 1024, dense_extent = 64, dense_tiles = dense_side / dense_extent;
constexpr std::int64_t dense_frag_tile_rows = 2, dense_frag_tile_cols = 8;

struct dense_region {
  std::int64_t r0, r1, c0, c1;  // inclusive
  bool operator==(const dense_region&) const = default;
};

dense_region dense_region_of(std::uint64_t seed, int band, int bands) {
  const std::int64_t band_rows = dense_tiles / bands, first = band * band_rows;
  const std::int64_t tr = first + static_cast<std::int64_t>(seed % static_cast<std::uint64_t>(band_rows - dense_frag_tile_rows + 1));
  const std::int64_t tc = static_cast<std::int64_t>((seed >> 8) % static_cast<std::uint64_t>(dense_tiles - dense_frag_tile_cols + 1));
  return {1 + tr * dense_extent, (tr + dense_frag_tile_rows) * dense_extent, 1 + tc * dense_extent,
          (tc + dense_frag_tile_cols) * dense_extent};
}

std::uint64_t dense_hash(std::uint64_t seed, std::int64_t r, std::int64_t c) {
  return splitmix64(seed ^ splitmix64((static_cast<std::uint64_t>(r) << 32) | static_cast<std::uint64_t>(c)));
}

// Sparse: x int64 in [0, 2^40] (band b from b * 2^36), y int32 in [0, 999999];
// a fragment holds 65536 cells, x = base + 3 i, given in a shuffled order.
constexpr std::uint64_t sparse_cells = 65536;
std::int64_t sparse_base(std::uint64_t seed, int band) {
  return (static_cast<std::int64_t>(band) << 36) + static_cast<std::int64_t>(seed & ((1ull << 30) - 1));
}
std::uint64_t sparse_hash(std::uint64_t seed, std::uint64_t i) { return splitmix64(seed ^ splitmix64(i)); }

using IntP = filter::pipeline<filter::byteshuffle, filter::zstd<1>>;
using FloatP = filter::pipeline<filter::bitshuffle, filter::lz4<>>;

void create_arrays(const fs::path& dense, const fs::path& sparse) {
  auto zstd = format::compression_pipeline(format::FilterType::ZSTD);
  array::create(dense, format::make_array_schema(
                           {.type = format::ArrayType::DENSE,
                            .dimensions = {format::make_dimension<std::int32_t>("row", 1, dense_side, dense_extent),
                                           format::make_dimension<std::int32_t>("col", 1, dense_side, dense_extent)},
                            .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32,
                                                                   .filters = IntP::descriptor()}),
                                           format::make_attribute({.name = "b", .type = format::Datatype::FLOAT64,
                                                                   .filters = FloatP::descriptor()}),
                                           format::make_attribute({.name = "c", .type = format::Datatype::UINT16,
                                                                   .nullable = true, .filters = zstd}),
                                           format::make_attribute({.name = "s", .type = format::Datatype::STRING_ASCII,
                                                                   .cell_val_num = format::var_num, .filters = zstd})}}));
  array::create(sparse, format::make_array_schema(
                            {.type = format::ArrayType::SPARSE,
                             .dimensions = {format::make_dimension<std::int64_t>("x", 0, std::int64_t{1} << 40, std::int64_t{1} << 24),
                                            format::make_dimension<std::int32_t>("y", 0, 999999, 1000)},
                             .attributes = {format::make_attribute({.name = "a", .type = format::Datatype::INT32,
                                                                    .filters = IntP::descriptor()}),
                                            format::make_attribute({.name = "b", .type = format::Datatype::FLOAT64,
                                                                    .filters = FloatP::descriptor()}),
                                            format::make_attribute({.name = "s", .type = format::Datatype::STRING_ASCII,
                                                                    .cell_val_num = format::var_num, .filters = zstd})},
                             .capacity = 8192}));
}

// ------------------------------------------------------------------ writing

/// The local file system, counting the calls that change it; the process
/// kills itself (SIGKILL) when call number `die_at` is about to start.
class dying_backend final : public testing::forwarding_backend<storage::local> {
public:
  dying_backend(long die_at, bool durable)
      : forwarding_backend(durable ? storage::local{} : storage::local{storage::local::not_durable}), die_at_(die_at) {}

private:
  void on_change(change, const fs::path&) override {
    if (calls_++ == die_at_) ::kill(::getpid(), SIGKILL);
  }

  long die_at_;
  long calls_ = 0;
};

/// A dense fragment of band `band` (of `bands`) with a label of its own;
/// its cells depend on the label, so the label is chosen before the cells.
array::dense_writer make_dense(const fs::path& root, const std::string& label, int band, int bands,
                                 std::shared_ptr<storage::backend> st) {
  const std::uint64_t seed = seed_of(label);
  const dense_region g = dense_region_of(seed, band, bands);
  array::dense_writer frag(root, {{g.r0, g.r1}, {g.c0, g.c1}}, array::cell_layout::row_major, std::move(st));
  const std::size_t n = static_cast<std::size_t>(frag.cell_num());
  std::vector<std::int32_t> a(n);
  std::vector<double> b(n);
  std::vector<std::uint16_t> c(n);
  std::vector<std::uint8_t> cv(n);
  std::vector<std::string> s(n);
  std::size_t i = 0;
  for (std::int64_t r = g.r0; r <= g.r1; ++r)
    for (std::int64_t col = g.c0; col <= g.c1; ++col, ++i) {
      const std::uint64_t h = dense_hash(seed, r, col);
      a[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(h));
      b[i] = cell_double(h);
      c[i] = static_cast<std::uint16_t>(h >> 48);
      cv[i] = ((h >> 45) & 7) != 0;
      s[i] = cell_string(h);
    }
  frag.set<IntP>("a", a).set<FloatP>("b", b).set("c", c, cv).set_var("s", s);
  return frag;
}

array::sparse_writer make_sparse(const fs::path& root, const std::string& label, int band,
                                   std::shared_ptr<storage::backend> st) {
  const std::uint64_t seed = seed_of(label);
  const std::int64_t base = sparse_base(seed, band);
  // Cells in the order of their hashes: any order but the global one.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> order(sparse_cells);
  for (std::uint64_t i = 0; i < sparse_cells; ++i) order[i] = {sparse_hash(seed, i), i};
  std::sort(order.begin(), order.end());
  std::vector<std::int64_t> x;
  std::vector<std::int32_t> y, a;
  std::vector<double> b;
  std::vector<std::string> s;
  for (auto [h, i] : order) {
    x.push_back(base + 3 * static_cast<std::int64_t>(i));
    y.push_back(static_cast<std::int32_t>(h % 1000000));
    a.push_back(static_cast<std::int32_t>(static_cast<std::uint32_t>(h >> 7)));
    b.push_back(cell_double(h));
    s.push_back(cell_string(h));
  }
  array::sparse_writer frag(root, std::move(st));
  frag.set_coords<std::int64_t>("x", x).set_coords<std::int32_t>("y", y);
  frag.set<IntP>("a", a).set<FloatP>("b", b).set_var("s", s);
  return frag;
}

/// A label as the writer makes one, taken before the cells are made.
std::string fresh_label() {
  auto [t, label] = array::detail::name_parts({});
  (void)t;
  return label;
}

void say(const std::string& line) {
  const std::string l = line + "\n";
  std::size_t done = 0;
  while (done < l.size()) {
    const ::ssize_t n = ::write(1, l.data() + done, l.size() - done);
    if (n <= 0) std::_Exit(3);
    done += static_cast<std::size_t>(n);
  }
}

/// The child: fragments alternately dense and sparse (from `kind`), each
/// announced with "c KIND LABEL" before commit and "d KIND NAME" after.
/// With --sync it waits for a line on standard input before each commit;
/// --t0 T names fragment k with timestamp T + k, --same-ms T does so for
/// even k only (the others take the time of their commit); --not-durable
/// writes without fsync (storage::local::not_durable).
int run_writer(int argc, char** argv) {
  fs::path dense = argv[2], sparse = argv[3];
  std::optional<std::uint64_t> t0;
  long die_at = -1;
  int kind = 0, band = 0, bands = 1, max = 8;
  bool sync = false, durable = true;
  std::optional<std::uint64_t> same_ms;  // even fragments: this + k as the timestamp
  for (int i = 4; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&] { return std::string(argv[++i]); };
    if (a == "--t0") t0 = std::stoull(next());
    else if (a == "--die-at") die_at = std::stol(next());
    else if (a == "--kind") kind = std::stoi(next());
    else if (a == "--band") band = std::stoi(next());
    else if (a == "--bands") bands = std::stoi(next());
    else if (a == "--max") max = std::stoi(next());
    else if (a == "--sync") sync = true;
    else if (a == "--not-durable") durable = false;
    else if (a == "--same-ms") same_ms = std::stoull(next());
    else throw std::invalid_argument("writer: unknown option " + a);
  }
  auto st = std::make_shared<dying_backend>(die_at, durable);
  for (int k = 0; k < max; ++k, kind ^= 1) {
    const std::string label = fresh_label();
    array::write_options opt{.label = label};
    if (t0) opt.timestamp = *t0 + static_cast<std::uint64_t>(k);
    if (same_ms && k % 2 == 0) opt.timestamp = *same_ms + static_cast<std::uint64_t>(k);
    std::optional<array::dense_writer> d;
    std::optional<array::sparse_writer> s;
    if (kind == 0) d.emplace(make_dense(dense, label, band, bands, st));
    else s.emplace(make_sparse(sparse, label, band, st));
    say("c " + std::to_string(kind) + " " + label);
    if (sync)  // one line ("go") per commit
      for (char ch = 0; ch != '\n';)
        if (::read(0, &ch, 1) != 1) return 2;
    const std::string name = kind == 0 ? d->commit(opt) : s->commit(opt);
    say("d " + std::to_string(kind) + " " + name);
  }
  return 0;
}

// ------------------------------------------------------------------ checking

struct check_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void expect(bool ok, const std::string& what) {
  if (!ok) throw check_failure(what);
}

template <class T>
void expect_column(const std::string& who, const std::string& field, std::size_t i, T got, T want) {
  if (!(got == want) && !(std::is_floating_point_v<T> && got != got && want != want)) {
    std::ostringstream m;
    m << who << ": " << field << "[" << i << "] is " << +got << ", written " << +want;
    throw check_failure(m.str());
  }
}

/// The cells of a fragment of the dense array, against those its label gives.
void check_dense_fragment(const array::fragment& f, int bands) {
  const std::string who = f.path().filename().string();
  const std::uint64_t seed = seed_of(f.name().uuid);
  const auto& ned = f.non_empty_domain();
  expect(ned.ranges.size() == 2, who + ": non-empty domain has " + std::to_string(ned.ranges.size()) + " ranges");
  auto [r0, r1] = ned.ranges[0].as<std::int32_t>();
  auto [c0, c1] = ned.ranges[1].as<std::int32_t>();
  const dense_region got{r0, r1, c0, c1};
  std::optional<dense_region> g;
  for (int band = 0; band < bands; ++band)
    if (dense_region_of(seed, band, bands) == got) g = got;
  expect(g.has_value(), who + ": non-empty domain [" + std::to_string(r0) + ", " + std::to_string(r1) + "] x [" +
                            std::to_string(c0) + ", " + std::to_string(c1) + "] is not where its label puts it");
  // Storage order: tiles row-major, cells row-major inside a tile.
  std::vector<std::uint64_t> h;
  for (std::int64_t tr = g->r0; tr <= g->r1; tr += dense_extent)
    for (std::int64_t tc = g->c0; tc <= g->c1; tc += dense_extent)
      for (std::int64_t r = tr; r < tr + dense_extent; ++r)
        for (std::int64_t c = tc; c < tc + dense_extent; ++c) h.push_back(dense_hash(seed, r, c));
  auto a = f.read<std::int32_t>("a");
  auto b = f.read<double>("b");
  auto c = f.read<std::uint16_t>("c");
  auto cv = f.read_validity("c");
  auto s = f.read_var<char>("s");
  expect(a.size() == h.size() && b.size() == h.size() && c.size() == h.size() && cv.size() == h.size() &&
             s.offsets.size() == h.size(),
         who + ": " + std::to_string(a.size()) + " cells read, " + std::to_string(h.size()) + " written");
  for (std::size_t i = 0; i < h.size(); ++i) {
    expect_column(who, "a", i, a[i], static_cast<std::int32_t>(static_cast<std::uint32_t>(h[i])));
    expect_column(who, "b", i, b[i], cell_double(h[i]));
    expect_column(who, "c", i, c[i], static_cast<std::uint16_t>(h[i] >> 48));
    expect_column<int>(who, "c.validity", i, cv[i], ((h[i] >> 45) & 7) != 0);
    const std::size_t from = s.offsets[i], to = i + 1 < h.size() ? s.offsets[i + 1] : s.values.size();
    expect(from <= to && to <= s.values.size(), who + ": s offsets out of order at " + std::to_string(i));
    expect(std::string(s.values.data() + from, s.values.data() + to) == cell_string(h[i]),
           who + ": s[" + std::to_string(i) + "] differs");
  }
}

void check_sparse_fragment(const array::fragment& f) {
  const std::string who = f.path().filename().string();
  const std::uint64_t seed = seed_of(f.name().uuid);
  auto x = f.read<std::int64_t>("x");
  auto y = f.read<std::int32_t>("y");
  auto a = f.read<std::int32_t>("a");
  auto b = f.read<double>("b");
  auto s = f.read_var<char>("s");
  const std::size_t n = x.size();
  expect(n == sparse_cells && y.size() == n && a.size() == n && b.size() == n && s.offsets.size() == n,
         who + ": " + std::to_string(n) + " cells read, " + std::to_string(sparse_cells) + " written");
  const int band = static_cast<int>(x[0] >> 36);
  const std::int64_t base = sparse_base(seed, band);
  std::vector<bool> seen(n);
  for (std::size_t k = 0; k < n; ++k) {
    expect(x[k] >= base && (x[k] - base) % 3 == 0 && static_cast<std::uint64_t>(x[k] - base) / 3 < n,
           who + ": x[" + std::to_string(k) + "] = " + std::to_string(x[k]) + " is no cell its label gives");
    const std::uint64_t i = static_cast<std::uint64_t>(x[k] - base) / 3;
    expect(!seen[i], who + ": cell " + std::to_string(i) + " read twice");
    seen[i] = true;
    const std::uint64_t h = sparse_hash(seed, i);
    expect_column(who, "y", k, y[k], static_cast<std::int32_t>(h % 1000000));
    expect_column(who, "a", k, a[k], static_cast<std::int32_t>(static_cast<std::uint32_t>(h >> 7)));
    expect_column(who, "b", k, b[k], cell_double(h));
    const std::size_t from = s.offsets[k], to = k + 1 < n ? s.offsets[k + 1] : s.values.size();
    expect(from <= to && to <= s.values.size(), who + ": s offsets out of order at " + std::to_string(k));
    expect(std::string(s.values.data() + from, s.values.data() + to) == cell_string(h),
           who + ": s[" + std::to_string(k) + "] differs");
    // Global order: space tiles row-major (x tiles of 2^24, y tiles of
    // 1000), then cells row-major.
    if (k) expect(std::make_tuple(x[k - 1] >> 24, y[k - 1] / 1000, x[k - 1], y[k - 1]) <
                      std::make_tuple(x[k] >> 24, y[k] / 1000, x[k], y[k]),
                  who + ": cells not in global order at " + std::to_string(k));
  }
}

/// Fragment names with a commit marker, straight from the folder.
std::set<std::string> markers(const fs::path& root) {
  std::set<std::string> out;
  std::error_code ec;
  for (auto it = fs::directory_iterator(root / "__commits", ec); !ec && it != fs::directory_iterator(); it.increment(ec))
    if (it->path().extension() == ".wrt") out.insert(it->path().stem().string());
  return out;
}

struct leftovers {
  std::size_t uncommitted_folders = 0, tmp_files = 0;
};

leftovers count_leftovers(const fs::path& root) {
  leftovers l;
  const auto committed = markers(root);
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->path().extension() == ".tmp") ++l.tmp_files;
    if (it->path().parent_path().filename() == "__fragments" && it->is_directory() &&
        !committed.count(it->path().filename().string()))
      ++l.uncommitted_folders;
  }
  return l;
}

/// How far an interrupted commit of the fragment labelled `label` got, from
/// what it left on disk.
std::string commit_stage(const fs::path& root, const std::string& label) {
  std::error_code ec;
  for (auto it = fs::directory_iterator(root / "__fragments", ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.find(label) == std::string::npos) continue;
    if (fs::exists(root / "__commits" / (name + ".wrt"))) return "committed";
    if (fs::exists(root / "__commits" / (name + ".wrt.tmp"))) return "marker being written";
    bool tmp = false, meta = false;
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(it->path())) {
      if (e.path().extension() == ".tmp") tmp = true;
      else if (e.path().filename() == "__fragment_metadata.tdb") meta = true;
      else ++files;
    }
    if (meta) return "no marker yet";
    if (tmp) return "a file being written";
    return files == 0 ? "empty folder" : "some data files";
  }
  return "no folder yet";
}

/// Opens `root` with tilefmt and checks every listed fragment (all of them,
/// or those for which `which` says true). Returns the listed names.
std::vector<std::string> check_array(const fs::path& root, bool sparse, int bands,
                                     const std::function<bool(const std::string&)>& which = {}) {
  std::optional<array::array_reader> arr;
  try {
    arr.emplace(array::open(root, {.threads = 1}));
  } catch (const std::exception& e) {
    throw check_failure(root.filename().string() + ": tilefmt cannot open it: " + e.what());
  }
  std::vector<std::string> names;
  for (const auto& f : arr->fragments()) names.push_back(f.path().filename().string());
  const auto marked = markers(root);
  expect(std::set<std::string>(names.begin(), names.end()) == marked,
         root.filename().string() + ": tilefmt lists " + std::to_string(names.size()) + " fragments, __commits has " +
             std::to_string(marked.size()) + " markers");
  for (const auto& f : arr->fragments()) {
    if (which && !which(f.path().filename().string())) continue;
    expect(f.dense() != sparse, f.path().filename().string() + ": wrong kind of fragment");
    if (sparse) check_sparse_fragment(f);
    else check_dense_fragment(f, bands);
  }
  return names;
}

// ------------------------------------------------------------------ processes

std::string self_exe() { return fs::read_symlink("/proc/self/exe").string(); }

/// A child process with pipes to its standard input and output.
struct child {
  pid_t pid = -1;
  int in = -1, out = -1;
  std::string buffer;

  static child spawn(const std::vector<std::string>& args) {
    int to[2], from[2];
    if (::pipe2(to, O_CLOEXEC) != 0 || ::pipe2(from, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    child c;
    c.pid = ::fork();
    if (c.pid < 0) throw std::runtime_error("fork failed");
    if (c.pid == 0) {
      ::dup2(to[0], 0);
      ::dup2(from[1], 1);
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      std::_Exit(127);
    }
    ::close(to[0]);
    ::close(from[1]);
    c.in = to[1];
    c.out = from[0];
    return c;
  }

  /// The next line, waiting until `deadline`; nullopt on end of file or time out.
  std::optional<std::string> line(clock_type::time_point deadline) {
    while (true) {
      auto nl = buffer.find('\n');
      if (nl != std::string::npos) {
        std::string l = buffer.substr(0, nl);
        buffer.erase(0, nl + 1);
        return l;
      }
      if (out < 0) return std::nullopt;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now()).count();
      if (left <= 0) return std::nullopt;
      pollfd p{out, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      char buf[4096];
      const ::ssize_t n = ::read(out, buf, sizeof buf);
      if (n <= 0) {
        ::close(out);
        out = -1;
        continue;
      }
      buffer.append(buf, static_cast<std::size_t>(n));
    }
  }

  void send(const std::string& l) {
    const std::string s = l + "\n";
    if (::write(in, s.data(), s.size()) != static_cast<::ssize_t>(s.size())) throw std::runtime_error("cannot write to a child");
  }

  /// Waits for the child; returns its wait status.
  int reap() {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (in >= 0) ::close(in);
    if (out >= 0) ::close(out);
    in = out = -1;
    return status;
  }
};

/// The external checkers (--checker CMD, run through /bin/sh): each is
/// asked the same request, and all must answer "ok ...".
struct checkers {
  std::vector<child> procs;
  std::vector<std::string> names;
  bool verbose = false;  // print the "ok" answers too

  explicit checkers(const std::vector<std::string>& cmds) {
    for (const auto& c : cmds) {
      procs.push_back(child::spawn({"/bin/sh", "-c", "exec " + c}));
      names.push_back(c);
      auto hello = procs.back().line(clock_type::now() + std::chrono::seconds(60));
      if (!hello || hello->rfind("ready", 0) != 0) throw std::runtime_error("checker did not start: " + c);
      std::cout << "checker: " << *hello << "\n";
    }
  }
  ~checkers() {
    for (auto& p : procs) {
      if (p.in >= 0) ::close(p.in);
      p.in = -1;
      p.reap();
    }
  }
  /// Problems reported (empty: all answered ok).
  std::vector<std::string> ask(const std::string& request, int seconds = 300) {
    send(request);
    return collect(seconds);
  }
  void send(const std::string& request) {
    for (auto& p : procs) p.send(request);
  }
  std::vector<std::string> collect(int seconds = 300) {
    std::vector<std::string> problems;
    for (std::size_t i = 0; i < procs.size(); ++i) {
      auto reply = procs[i].line(clock_type::now() + std::chrono::seconds(seconds));
      if (!reply) problems.push_back(names[i] + ": no answer");
      else if (reply->rfind("ok", 0) != 0) problems.push_back(names[i] + ": " + *reply);
      else if (verbose) std::cout << "checker " << i << ": " << *reply << "\n";
    }
    return problems;
  }
};

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s.empty() ? "-" : s;
}

double seconds_since(clock_type::time_point t) { return std::chrono::duration<double>(clock_type::now() - t).count(); }

// ------------------------------------------------------------------ torture

int run_torture(const fs::path& work, std::uint64_t seed, int kills, double seconds, int rotate,
                const std::vector<std::string>& checker_cmds) {
  fs::remove_all(work);
  fs::create_directories(work);
  checkers ext(checker_cmds);
  const auto start = clock_type::now();  // the time allowed starts once the checkers are up
  std::mt19937_64 rng(seed);
  const std::string exe = self_exe();
  // Measured commit durations per kind (ms), for the kill delays.
  double commit_ms[2] = {20, 60};
  // Calls to the storage per commit: the fragment's folder, its data files
  // (dense: a, b, c + validity, s offsets + values; sparse: a, b, s twice,
  // x, y), its metadata, the __commits folder and the marker.
  const long calls[2] = {10, 10};
  int done = 0, external = 0, self = 0, not_killed = 0, failures = 0, fragments_checked = 0;
  int interrupted_visible = 0, interrupted_invisible = 0, committed_total = 0;
  std::size_t max_folders = 0, max_tmp = 0;
  std::map<std::string, int> stages;  // where interrupted commits stopped
  double t_write = 0, t_tilefmt = 0, t_external = 0;  // seconds spent
  fs::path dense, sparse;
  std::set<std::string> known[2];
  const std::uint64_t t_base = 1700000000000ull;
  for (int run = 0; done < kills && seconds_since(start) < seconds; ++run) {
    if (run % rotate == 0) {
      if (!dense.empty()) {
        // The arrays' last state, read whole by every checker before they go.
        for (const auto& p : ext.ask("check " + dense.string() + " " + sparse.string() + " " +
                                     join({known[0].begin(), known[0].end()}) + " " +
                                     join({known[1].begin(), known[1].end()}) + " all")) {
          std::cout << "FAIL before rotating: " << p << "\n";
          ++failures;
        }
        fs::remove_all(dense);
        fs::remove_all(sparse);
      }
      dense = work / ("dense-" + std::to_string(run));
      sparse = work / ("sparse-" + std::to_string(run));
      create_arrays(dense, sparse);
      known[0].clear();
      known[1].clear();
    }
    const bool self_kill = rng() % 3 == 0;
    const int kind = static_cast<int>(rng() % 2);
    std::vector<std::string> args{exe, "write", dense.string(), sparse.string(), "--t0",
                                  std::to_string(t_base + static_cast<std::uint64_t>(run) * 64), "--kind",
                                  std::to_string(kind), "--not-durable"};
    long die_at = -1;
    if (self_kill) {
      die_at = static_cast<long>(rng() % static_cast<std::uint64_t>(calls[kind] + calls[kind ^ 1] + 1));
      args.insert(args.end(), {"--die-at", std::to_string(die_at)});
    }
    // External kills: after the j-th announced commit (j = 1 or 2), a delay
    // of 0.5 to 1.15 times that kind's measured commit time (the files are
    // written at the end of a commit, after the cells are encoded).
    const int target = 1 + static_cast<int>(rng() % 2);
    const double frac = std::uniform_real_distribution<double>(0.5, 1.15)(rng);
    auto phase = clock_type::now();
    child w = child::spawn(args);
    std::vector<std::string> announced;  // "kind label" of commits begun
    std::vector<std::pair<int, std::string>> acked;
    std::map<std::string, clock_type::time_point> began;
    bool killed = false;
    const auto give_up = clock_type::now() + std::chrono::seconds(30);
    while (auto l = w.line(give_up)) {
      if (l->size() > 2 && (*l)[0] == 'c') {
        announced.push_back(l->substr(2));
        began[l->substr(4)] = clock_type::now();
        if (!self_kill && !killed && static_cast<int>(announced.size()) == target) {
          const int k = (*l)[2] - '0';
          std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long>(frac * commit_ms[k] * 1000)));
          ::kill(w.pid, SIGKILL);
          killed = true;
        }
      } else if (l->size() > 2 && (*l)[0] == 'd') {
        const int k = (*l)[2] - '0';
        const std::string name = l->substr(4);
        acked.push_back({k, name});
        auto parsed = format::parse_timestamped_name(name);
        if (auto it = began.find(parsed.uuid); it != began.end())
          commit_ms[k] = 0.8 * commit_ms[k] +
                         0.2 * std::chrono::duration<double, std::milli>(clock_type::now() - it->second).count();
      }
    }
    // (Read to the end: lines the writer printed before it died count.)
    if (!killed && !self_kill) ::kill(w.pid, SIGKILL);  // timed out: count it as a kill anyway
    const int status = w.reap();
    const bool by_kill = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    if (!by_kill) {
      ++not_killed;
      if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        std::cout << "FAIL run " << run << ": the writer ended with status " << status << "\n";
        ++failures;
      }
    } else {
      ++done;
      (self_kill ? self : external)++;
    }
    t_write += seconds_since(phase);
    phase = clock_type::now();
    // Checks.
    std::string when = "run " + std::to_string(run) + (self_kill ? " (self-kill at call " + std::to_string(die_at) + ")"
                                                                 : " (kill " + std::to_string(frac) + " of a commit)");
    try {
      std::set<std::string> listed[2];
      for (int k = 0; k < 2; ++k) {
        // Fragments not read back yet, and one read before; all of them
        // before the arrays are replaced.
        std::string old;
        if (!known[k].empty())
          old = *std::next(known[k].begin(), static_cast<long>(splitmix64(seed + 2 * static_cast<std::uint64_t>(run) + static_cast<std::uint64_t>(k)) % known[k].size()));
        const bool all = (run + 1) % rotate == 0;
        auto names = check_array(k ? sparse : dense, k == 1, 1, [&](const std::string& n) {
          const bool read = all || !known[k].count(n) || n == old;
          fragments_checked += read;
          return read;
        });
        listed[k] = {names.begin(), names.end()};
        for (const auto& n : known[k])
          expect(listed[k].count(n) != 0, "fragment " + n + ", committed before, is no longer listed");
      }
      for (const auto& [k, name] : acked)
        expect(listed[k].count(name) != 0, "fragment " + name + " was committed (commit() returned) but is not listed");
      // The commit begun last and not acknowledged: listed (and then checked
      // above) or not at all.
      if (announced.size() > acked.size()) {
        const std::string last = announced.back();
        const int k = last[0] - '0';
        bool visible = false;
        for (const auto& n : listed[k])
          if (!known[k].count(n) && format::parse_timestamped_name(n).uuid == last.substr(2)) visible = true;
        (visible ? interrupted_visible : interrupted_invisible)++;
        stages[commit_stage(k ? sparse : dense, last.substr(2))]++;
      }
      for (int k = 0; k < 2; ++k) {
        committed_total += static_cast<int>(listed[k].size() - known[k].size());
        known[k] = listed[k];
      }
      const auto ld = count_leftovers(dense), ls = count_leftovers(sparse);
      max_folders = std::max(max_folders, ld.uncommitted_folders + ls.uncommitted_folders);
      max_tmp = std::max(max_tmp, ld.tmp_files + ls.tmp_files);
      t_tilefmt += seconds_since(phase);
      phase = clock_type::now();
      for (const auto& p : ext.ask("check " + dense.string() + " " + sparse.string() + " " +
                                   join({known[0].begin(), known[0].end()}) + " " +
                                   join({known[1].begin(), known[1].end()}) + " new")) {
        std::cout << "FAIL " << when << ": " << p << "\n";
        ++failures;
      }
      t_external += seconds_since(phase);
    } catch (const check_failure& e) {
      std::cout << "FAIL " << when << ": " << e.what() << "\n";
      ++failures;
    }
    if (failures > 5) break;
  }
  if (!dense.empty() && failures == 0)
    for (const auto& p : ext.ask("check " + dense.string() + " " + sparse.string() + " " +
                                 join({known[0].begin(), known[0].end()}) + " " +
                                 join({known[1].begin(), known[1].end()}) + " all")) {
      std::cout << "FAIL at the end: " << p << "\n";
      ++failures;
    }
  std::cout << "torture: seed " << seed << ", " << done << " kills (" << external << " from outside, " << self
            << " self-kills at a storage call), " << not_killed << " writers finished unkilled, " << committed_total
            << " fragments committed, interrupted commits: " << interrupted_visible << " listed complete, "
            << interrupted_invisible << " invisible; " << fragments_checked
            << " fragment checks by tilefmt; at most " << max_folders << " uncommitted fragment folders and "
            << max_tmp << " temporary files left in the arrays; " << ext.procs.size() << " external checkers; "
            << seconds_since(start) << " s\n";
  std::cout << "time: writers " << t_write << " s, tilefmt checks " << t_tilefmt << " s, external checks " << t_external
            << " s\n";
  std::cout << "interrupted commits stopped at:";
  for (const auto& [stage, n] : stages) std::cout << " " << stage << " " << n << ";";
  std::cout << "\n";
  // A loaded machine (fsync taking seconds) makes fewer kills in the time
  // allowed; a handful still tells.
  if (done < std::min(kills, 5)) {
    std::cout << "FAIL: only " << done << " kills in the time allowed\n";
    ++failures;
  }
  std::cout << (failures ? 0 : 1) << " passed, " << (failures ? 1 : 0) << " failed\n";
  return failures ? 1 : 0;
}

// ------------------------------------------------------------------ concurrent writers

int run_concurrent(const fs::path& work, int writers, int fragments, double watch_seconds,
                   const std::vector<std::string>& checker_cmds) {
  const auto start = clock_type::now();
  fs::remove_all(work);
  fs::create_directories(work);
  const fs::path dense = work / "dense", sparse = work / "sparse";
  create_arrays(dense, sparse);
  checkers ext(checker_cmds);
  ext.verbose = true;
  const std::string exe = self_exe();
  // Even fragments share a timestamp across the writers (as if committed in
  // one millisecond); odd ones take the time of their commit.
  const std::string same_ms = std::to_string(array::detail::now_ms());
  std::vector<child> ws;
  for (int p = 0; p < writers; ++p)
    ws.push_back(child::spawn({exe, "write", dense.string(), sparse.string(), "--kind", "0", "--band",
                               std::to_string(p), "--bands", std::to_string(writers), "--max",
                               std::to_string(fragments), "--sync", "--same-ms", same_ms}));
  // The external checkers open and read the arrays while the writers commit.
  ext.send("watch " + dense.string() + " " + sparse.string() + " " + std::to_string(watch_seconds) + " " +
           std::to_string(writers));
  int failures = 0;
  std::vector<std::pair<int, std::string>> acked;
  const auto give_up = clock_type::now() + std::chrono::seconds(50);
  for (int k = 0; k < fragments; ++k) {
    // Every writer has its cells ready: let them all commit at once.
    for (auto& w : ws) {
      auto l = w.line(give_up);
      if (!l || (*l)[0] != 'c') throw std::runtime_error("a writer did not announce its commit");
    }
    for (auto& w : ws) w.send("go");
    for (auto& w : ws) {
      auto l = w.line(give_up);
      if (!l || (*l)[0] != 'd') throw std::runtime_error("a writer did not finish its commit");
      acked.push_back({(*l)[2] - '0', l->substr(4)});
    }
  }
  for (auto& w : ws) {
    const int status = w.reap();
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
      std::cout << "FAIL: a writer ended with status " << status << "\n";
      ++failures;
    }
  }
  for (const auto& p : ext.collect()) {
    std::cout << "FAIL while the writers committed: " << p << "\n";
    ++failures;
  }
  std::map<std::uint64_t, int> per_ms;
  std::set<std::string> names[2];
  for (const auto& [k, n] : acked) {
    names[k].insert(n);
    per_ms[format::parse_timestamped_name(n).t1]++;
  }
  int shared = 0;
  for (auto [t, n] : per_ms) shared += n > 1 ? n : 0;
  try {
    expect(names[0].size() + names[1].size() == acked.size(), "two commits returned the same name");
    for (int k = 0; k < 2; ++k) {
      auto listed = check_array(k ? sparse : dense, k == 1, writers);
      expect(std::set<std::string>(listed.begin(), listed.end()) == names[k],
             std::string(k ? "sparse" : "dense") + ": tilefmt lists " + std::to_string(listed.size()) +
                 " fragments, the writers committed " + std::to_string(names[k].size()));
    }
    for (const auto& p : ext.ask("check " + dense.string() + " " + sparse.string() + " " +
                                 join({names[0].begin(), names[0].end()}) + " " +
                                 join({names[1].begin(), names[1].end()}) + " all " + std::to_string(writers))) {
      std::cout << "FAIL: " << p << "\n";
      ++failures;
    }
  } catch (const check_failure& e) {
    std::cout << "FAIL: " << e.what() << "\n";
    ++failures;
  }
  std::cout << "concurrent: " << writers << " writers, " << acked.size() << " fragments committed, " << shared
            << " of them sharing their millisecond with another; " << seconds_since(start) << " s\n";
  std::cout << (failures ? 0 : 1) << " passed, " << (failures ? 1 : 0) << " failed\n";
  return failures ? 1 : 0;
}

// ------------------------------------------------------------------ cost of durable writes

/// Commits `n` dense and `n` sparse fragments with durable local writes
/// (fsync) and as many without, and prints the time per commit.
int run_cost(const fs::path& work, int n) {
  fs::remove_all(work);
  for (bool durable : {true, false, true, false}) {
    const fs::path dense = work / "dense", sparse = work / "sparse";
    fs::remove_all(work);
    create_arrays(dense, sparse);
    auto st = durable ? std::make_shared<storage::local>() : std::make_shared<storage::local>(storage::local::not_durable);
    double ms[2] = {0, 0};
    for (int i = 0; i < n; ++i) {
      const std::string l1 = fresh_label(), l2 = fresh_label();
      auto d = make_dense(dense, l1, 0, 1, st);
      auto s = make_sparse(sparse, l2, 0, st);
      auto t = clock_type::now();
      d.commit({.label = l1});
      ms[0] += std::chrono::duration<double, std::milli>(clock_type::now() - t).count();
      t = clock_type::now();
      s.commit({.label = l2});
      ms[1] += std::chrono::duration<double, std::milli>(clock_type::now() - t).count();
    }
    std::cout << (durable ? "durable:     " : "not durable: ") << "dense commit " << ms[0] / n << " ms, sparse commit "
              << ms[1] / n << " ms (" << n << " each)\n";
  }
  fs::remove_all(work);
  return 0;
}

// ------------------------------------------------------------------ readers during commits

int run_readers(const fs::path& work, double seconds, int threads) {
  fs::remove_all(work);
  fs::create_directories(work);
  const fs::path dense = work / "dense", sparse = work / "sparse";
  create_arrays(dense, sparse);
  child w = child::spawn({self_exe(), "write", dense.string(), sparse.string(), "--max", "100000"});
  std::atomic<bool> stop{false};
  std::atomic<long> opens{0}, reads{0};
  std::mutex m;
  std::vector<std::string> problems;
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t)
    ts.emplace_back([&, t] {
      std::size_t seen[2] = {0, 0};
      for (long i = 0; !stop; ++i) {
        const int k = static_cast<int>((i + t) % 2);
        try {
          auto arr = array::open(k ? sparse : dense, {.threads = 1});
          ++opens;
          const auto& frags = arr.fragments();
          expect(frags.size() >= seen[k], "the fragment list shrank from " + std::to_string(seen[k]) + " to " +
                                              std::to_string(frags.size()));
          seen[k] = frags.size();
          if (!frags.empty()) {
            if (k) check_sparse_fragment(frags.back());
            else check_dense_fragment(frags.back(), 1);
            ++reads;
          }
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> lock(m);
          problems.push_back(std::string(k ? "sparse" : "dense") + ": " + e.what());
          if (problems.size() > 5) stop = true;
        }
      }
    });
  std::vector<std::string> acked;
  // At least `seconds`, and longer (up to eight times) until enough has
  // happened to tell: a sanitizer build on a busy machine commits slowly.
  const auto start = clock_type::now();
  auto after = [&](double s) {
    return start + std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(s));
  };
  const auto end = after(seconds), last = after(8 * seconds);
  for (;;) {
    const auto now = clock_type::now();
    if (now >= last || (now >= end && acked.size() >= 4 && opens >= 10)) break;
    auto l = w.line(now < end ? end : std::min(last, now + std::chrono::seconds(1)));
    if (l && (*l)[0] == 'd') acked.push_back(l->substr(4));
    if (!l && w.out < 0) break;  // the writer is gone
  }
  stop = true;
  for (auto& t : ts) t.join();
  ::kill(w.pid, SIGKILL);
  w.reap();
  int failures = 0;
  for (const auto& p : problems) {
    std::cout << "FAIL: " << p << "\n";
    ++failures;
  }
  try {
    auto d = check_array(dense, false, 1);
    auto s = check_array(sparse, true, 1);
    expect(d.size() + s.size() >= acked.size(), "fewer fragments listed than committed");
    std::cout << "readers: " << acked.size() << " fragments committed while " << threads << " threads opened the arrays "
              << opens << " times and read " << reads << " fragments\n";
    expect(acked.size() >= 4 && opens >= 10, "too little happened to tell");
  } catch (const check_failure& e) {
    std::cout << "FAIL: " << e.what() << "\n";
    ++failures;
  }
  std::cout << (failures ? 0 : 1) << " passed, " << (failures ? 1 : 0) << " failed\n";
  return failures ? 1 : 0;
}

// ------------------------------------------------------------------ leftovers

int run_leftovers(const fs::path& work) {
  fs::remove_all(work);
  fs::create_directories(work);
  const fs::path dense = work / "dense", sparse = work / "sparse";
  create_arrays(dense, sparse);
  const std::string l1 = fresh_label();
  const std::string n1 = make_dense(dense, l1, 0, 1, {}).commit({.label = l1});
  const std::string l2 = fresh_label();
  const std::string n2 = make_sparse(sparse, l2, 0, {}).commit({.label = l2});
  // What a writer killed at any point of a commit can leave behind.
  const std::string orphan = "__1700000000001_1700000000001_00000000000000000000000000000001_22";
  auto touch = [](const fs::path& p, std::size_t n = 0) {
    fs::create_directories(p.parent_path());
    std::FILE* f = std::fopen(p.c_str(), "wb");
    for (std::size_t i = 0; i < n; ++i) std::fputc('x', f);
    std::fclose(f);
  };
  for (const auto& root : {dense, sparse}) {
    fs::create_directories(root / "__fragments" / orphan);                        // folder made, nothing written
    touch(root / "__fragments" / orphan / "a0.tdb.tmp", 100);                     // a data file half written
    touch(root / "__fragments" / orphan / "a1.tdb", 100);                         // data files complete,
    touch(root / "__fragments" / orphan / "__fragment_metadata.tdb.tmp", 10);     // metadata half written
    touch(root / "__commits" / (orphan + ".wrt.tmp"));                            // marker not yet renamed
  }
  int failures = 0;
  try {
    auto d = check_array(dense, false, 1);
    auto s = check_array(sparse, true, 1);
    expect(d == std::vector<std::string>{n1}, "dense: the orphan is listed");
    expect(s == std::vector<std::string>{n2}, "sparse: the orphan is listed");
    // And the writer still writes next to them.
    const std::string l3 = fresh_label();
    const std::string n3 = make_dense(dense, l3, 0, 1, {}).commit({.label = l3});
    d = check_array(dense, false, 1);
    expect(d.size() == 2, "dense: a fragment written next to leftovers is not listed");
  } catch (const check_failure& e) {
    std::cout << "FAIL: " << e.what() << "\n";
    ++failures;
  }
  std::cout << (failures ? 0 : 1) << " passed, " << (failures ? 1 : 0) << " failed\n";
  return failures ? 1 : 0;
}

} // namespace

int main(int argc, char** argv) try {
  if (argc < 3) {
    std::cerr << "usage: crash-writer torture|concurrent|readers|leftovers WORK [options] | check DENSE SPARSE | write ...\n";
    return 2;
  }
  const std::string mode = argv[1];
  if (mode == "write") return run_writer(argc, argv);
  // A child that is gone is an error to report, not a silent death.
  std::signal(SIGPIPE, SIG_IGN);
  std::cout << std::unitbuf;
  std::uint64_t seed = 1;
  int kills = 100, rotate = 10, writers = 2, fragments = 6, threads = 2, bands = 1;
  double seconds = 45;
  std::vector<std::string> checker_cmds;
  int first_option = mode == "check" ? 4 : 3;
  for (int i = first_option; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&] {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return std::string(argv[++i]);
    };
    if (a == "--seed") seed = std::stoull(next());
    else if (a == "--kills") kills = std::stoi(next());
    else if (a == "--seconds") seconds = std::stod(next());
    else if (a == "--rotate") rotate = std::stoi(next());
    else if (a == "--writers") writers = std::stoi(next());
    else if (a == "--fragments") fragments = std::stoi(next());
    else if (a == "--threads") threads = std::stoi(next());
    else if (a == "--bands") bands = std::stoi(next());
    else if (a == "--checker") checker_cmds.push_back(next());
    else throw std::invalid_argument("unknown option " + a);
  }
  const fs::path work = argv[2];
  if (mode == "torture") return run_torture(work, seed, kills, seconds, std::max(rotate, 1), checker_cmds);
  if (mode == "concurrent") return run_concurrent(work, writers, fragments, seconds, checker_cmds);
  if (mode == "cost") return run_cost(work, fragments);
  if (mode == "readers") return run_readers(work, seconds, threads);
  if (mode == "leftovers") return run_leftovers(work);
  if (mode == "check") {
    auto d = check_array(argv[2], false, bands);
    auto s = check_array(argv[3], true, bands);
    std::cout << "check: " << d.size() << " dense and " << s.size() << " sparse fragments read back as written\n";
    return 0;
  }
  std::cerr << "unknown mode " << mode << "\n";
  return 2;
} catch (const std::exception& e) {
  std::cerr << "crash-writer: " << e.what() << "\n";
  return 1;
}
