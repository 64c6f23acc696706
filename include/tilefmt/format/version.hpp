// tilefmt — the format versions this library knows: the newest it reads and
// the one it writes. Everything that stamps a version on new bytes (schema
// files, fragment metadata, generic tiles, pipeline descriptors, fragment
// names) defaults to `written_version`.
#pragma once

#include <cstdint>

namespace tilefmt::format {

/// The newest format version read: TileDB's constants::format_version at its
/// development head after 2.30 (23: sections after the processed conditions
/// in a fragment footer). A schema of a newer version is decoded with this
/// version's layout and rejected, naming its version, when it does not fit.
inline constexpr std::uint32_t newest_read_version = 23;

/// The format version written: what TileDB 2.25 to 2.30 write.
inline constexpr std::uint32_t written_version = 22;

} // namespace tilefmt::format
