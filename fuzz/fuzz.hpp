// tilefmt — the fuzz harnesses, one per decoder family. Each fuzz_<family>.cpp
// is a libFuzzer target that hands its input to one of these; the harnesses
// live in two translation units (harness_format.cpp: codec and format layer;
// harness_array.cpp: filters, generic tiles and the array layer;
// harness_storage.cpp: what storage servers answer) so that the library's
// templates are compiled once for all targets.
//
// Every harness lets tilefmt::format_error, tilefmt::storage::io_error
// (= array::io_error) and std::invalid_argument pass silently: those are how
// the library refuses bad input. Any other exception escapes to libFuzzer,
// which reports it with the input, as it reports crashes, sanitizer errors,
// timeouts and allocations over -malloc_limit_mb.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace tilefmt::fuzz {

using input = std::span<const std::uint8_t>;

void schema(input);
void fragment_metadata(input);
void generic_tile(input);
void array_metadata(input);
void group_details(input);
void consolidated_fragment_metadata(input);
void commit_files(input);
void filter_pipeline(input);
void whole_array(input);
void codec_formats(input);
void storage_answers(input);

/// Writes seed inputs for every target, built from the arrays under
/// `data_dir` (tests/data), to `out_dir`/<target>/. Returns the number written.
std::size_t make_seeds(const char* data_dir, const char* out_dir);

} // namespace tilefmt::fuzz

