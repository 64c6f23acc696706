// tilefmt — array::create's definition (write/create.hpp), left out of
// programs built with TILEFMT_COMPILED.
#pragma once

#include "tilefmt/array/write/create.hpp"
#include "tilefmt/array/write/schema_rules.hpp"

namespace tilefmt::array {

TILEFMT_FUNC std::string create(const fs::path& root, format::ArraySchema schema, const write_options& opt) {
  return detail::create_array(root, std::move(schema), opt.enumerations, opt);
}

} // namespace tilefmt::array

// The compiled component's explicit instantiations (src/compiled/).
#include "tilefmt/array/model/compiled_instances.hpp"
