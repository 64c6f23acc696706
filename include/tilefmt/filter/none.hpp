// tilefmt — the NONE filter (also what a compression filter set to
// NO_COMPRESSION is stored as): data and metadata pass through.
#pragma once

#include "tilefmt/filter/stage.hpp"

namespace tilefmt::filter {

struct none {
  static constexpr format::FilterType filter_type = format::FilterType::NONE;
  format::Filter descriptor(std::uint32_t) const { return format::Filter::make(filter_type); }
  static none from_filter(const format::Filter&, std::uint32_t) { return {}; }
  format::Datatype output_type(format::Datatype in) const { return in; }
  void forward(forward_io& io) const {
    io.out_metadata.append(io.in_metadata);
    io.out_data.append(io.in_data);
  }
  void reverse(reverse_io& io) const {
    io.out_metadata = io.metadata;
    io.out_data = io.data;
  }
};

} // namespace tilefmt::filter
