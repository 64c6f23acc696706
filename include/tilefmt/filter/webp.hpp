// tilefmt — the WEBP filter (filter type 18; format_spec/filters/webp.md;
// tiledb/sm/filter/webp_filter.cc): each part of a UINT8 tile is one image,
// `y_extent` rows of `x_extent` bytes (pixels x 3 for RGB / BGR, x 4 for
// RGBA / BGRA), encoded by libwebp (lossy at `quality`, or lossless).
// Metadata: the encoded length of each part, in input order, while the
// parts are stored last first (TileDB prepends each one). A pipeline with
// WEBP is never chunked (use_tile_chunking). The encoded bytes depend on
// the libwebp version.
//
// libwebp is optional. Defining TILEFMT_HAVE_WEBP to 1 (as -DTILEFMT_HAVE_WEBP
// does) turns it on, and then libwebp must be linked (pkg-config `libwebp`;
// the Meson dependency and tilefmt.pc do both when libwebp is found). It is
// opt-in rather than detected from the headers, because headers without the
// library would compile and then fail to link. Without it the stage still
// reads and writes its options, and filtering throws unsupported_filter.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "tilefmt/filter/stage.hpp"
#include "tilefmt/format/filter_metadata.hpp"

#ifndef TILEFMT_HAVE_WEBP
#define TILEFMT_HAVE_WEBP 0
#endif

#if TILEFMT_HAVE_WEBP
#include <webp/decode.h>
#include <webp/encode.h>
#endif

namespace tilefmt::filter {

/// The colour layout of the pixels (TileDB's WebpInputFormat).
enum class webp_format : std::uint8_t { none = 0, rgb = 1, bgr = 2, rgba = 3, bgra = 4 };

/// TileDB's defaults: quality 100 (lossy), no format (which must be set
/// before writing), extents 0. To fix other values at compile time, pass a
/// struct with the same static members.
struct webp_defaults {
  static constexpr float quality = 100.0f;
  static constexpr webp_format format = webp_format::none;
  static constexpr bool lossless = false;
  static constexpr std::uint16_t y_extent = 0;
  static constexpr std::uint16_t x_extent = 0;
};

namespace detail {

#if TILEFMT_HAVE_WEBP
struct webp_buffer {
  std::uint8_t* p = nullptr;
  webp_buffer() = default;
  webp_buffer(const webp_buffer&) = delete;
  webp_buffer& operator=(const webp_buffer&) = delete;
  ~webp_buffer() {
    if (p) WebPFree(p);
  }
};
#endif

[[noreturn]] inline void webp_unsupported() {
  throw unsupported_filter("unsupported filter: webp (built without libwebp)", 0);
}

} // namespace detail

template <class Params = webp_defaults>
struct webp {
  static constexpr format::FilterType filter_type = format::FilterType::WEBP;
  float quality = Params::quality;
  webp_format format = Params::format;
  bool lossless = Params::lossless;
  std::uint16_t y_extent = Params::y_extent; // rows: the extent of dimension 0
  std::uint16_t x_extent = Params::x_extent; // bytes per row: the extent of dimension 1

  format::Filter descriptor(std::uint32_t version) const {
    format::WebpOptions o{quality, static_cast<std::uint8_t>(format), static_cast<std::uint8_t>(lossless ? 1 : 0),
                          y_extent, x_extent, {0, 0}};
    return format::Filter::make(filter_type, o, version);
  }
  static webp from_filter(const format::Filter& f, std::uint32_t version) {
    auto o = f.options_as<format::WebpOptions>(version);
    return webp{o.quality, static_cast<webp_format>(o.format), o.lossless != 0, o.y_extent, o.x_extent};
  }
  format::Datatype output_type(format::Datatype in) const { return in; }

  /// The smallest WebP file: the RIFF header (12 bytes) and a chunk header (8).
  static constexpr std::uint32_t minimum_image_bytes = 20;

  /// Bytes per pixel: 3 without alpha, 4 with.
  std::size_t pixel_depth() const { return format < webp_format::rgba ? 3 : 4; }

#if TILEFMT_HAVE_WEBP
  void forward(forward_io& io) const {
    check(io.type, [](const std::string& what) { throw std::invalid_argument("tilefmt: WEBP filter: " + what); });
    const part_list& in = io.in_data;
    const int depth = static_cast<int>(pixel_depth());
    const int width = x_extent / depth, height = y_extent, stride = x_extent;
    std::vector<detail::webp_buffer> encoded(in.size());
    std::vector<std::size_t> sizes(in.size());
    std::size_t total = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (in[i].size() != std::size_t{y_extent} * x_extent)
        throw std::invalid_argument("tilefmt: WEBP filter: a part of " + std::to_string(in[i].size()) +
                                    " bytes is not an image of " + std::to_string(y_extent) + " x " +
                                    std::to_string(x_extent) + " bytes");
      const auto* px = reinterpret_cast<const std::uint8_t*>(in[i].data());
      std::uint8_t** out = &encoded[i].p;
      std::size_t n = 0;
      switch (format) {
      case webp_format::rgb:
        n = lossless ? WebPEncodeLosslessRGB(px, width, height, stride, out) : WebPEncodeRGB(px, width, height, stride, quality, out);
        break;
      case webp_format::bgr:
        n = lossless ? WebPEncodeLosslessBGR(px, width, height, stride, out) : WebPEncodeBGR(px, width, height, stride, quality, out);
        break;
      case webp_format::rgba:
        n = lossless ? WebPEncodeLosslessRGBA(px, width, height, stride, out) : WebPEncodeRGBA(px, width, height, stride, quality, out);
        break;
      case webp_format::bgra:
        n = lossless ? WebPEncodeLosslessBGRA(px, width, height, stride, out) : WebPEncodeBGRA(px, width, height, stride, quality, out);
        break;
      default: break;
      }
      if (n == 0 || n > 0xffffffffu) throw std::runtime_error("tilefmt: WEBP filter: libwebp failed to encode an image");
      sizes[i] = n;
      total += n;
    }
    auto md = scratch::sized(io.buf.metadata, 4 + 4 * in.size());
    codec::store_le<std::uint32_t>(md.data(), static_cast<std::uint32_t>(in.size()));
    auto out = scratch::sized(io.buf.data, total);
    std::size_t at = 0;
    for (std::size_t i = in.size(); i-- > 0;) { // stored last part first
      std::memcpy(out.data() + at, encoded[i].p, sizes[i]);
      at += sizes[i];
    }
    for (std::size_t i = 0; i < in.size(); ++i)
      codec::store_le<std::uint32_t>(md.data() + 4 + 4 * i, static_cast<std::uint32_t>(sizes[i]));
    io.out_metadata.push_back(md);
    io.out_metadata.append(io.in_metadata);
    at = 0;
    for (std::size_t i = in.size(); i-- > 0;) {
      io.out_data.push_back(out.subspan(at, sizes[i]));
      at += sizes[i];
    }
  }

  void reverse(reverse_io& io) const {
    check(io.type, [](const std::string& what) { throw format_error("WEBP filter: " + what, 0); });
    format::WebpMD md;
    const std::size_t used = read_metadata(filter_type, io.metadata, md);
    // Every image has at least its RIFF and chunk headers, so the number of
    // images (and the bytes they decode to) is bounded by the stored bytes.
    std::size_t stored = 0;
    for (std::uint32_t len : md.part_lengths) {
      if (len < minimum_image_bytes)
        corrupt(filter_type, "a part of " + std::to_string(len) + " bytes cannot hold a WebP image");
      stored += len;
    }
    if (stored != io.data.size())
      corrupt(filter_type, "parts hold " + std::to_string(stored) + " bytes, the chunk has " + std::to_string(io.data.size()));
    const std::size_t image = std::size_t{y_extent} * x_extent;
    const std::size_t total = image * md.part_lengths.size();
    if (!io.destination.empty() && total != io.destination.size())
      corrupt(filter_type, std::to_string(md.part_lengths.size()) + " images of " + std::to_string(image) +
                               " bytes do not fill the chunk's " + std::to_string(io.destination.size()));
    auto out = io.output(total);
    // The data holds the parts last first (forward prepends each one); the
    // metadata lists their lengths in input order. (TileDB only ever writes
    // one part: WEBP is the first filter of an unchunked tile.)
    std::size_t in_at = 0;
    for (std::size_t i = md.part_lengths.size(); i-- > 0;) {
      const std::uint32_t len = md.part_lengths[i];
      const auto* data = reinterpret_cast<const std::uint8_t*>(io.data.data() + in_at);
      // The image's size is checked against the filter's extents before
      // libwebp decodes, straight into the output: a corrupt header cannot
      // make it allocate.
      int w = 0, h = 0;
      if (!WebPGetInfo(data, len, &w, &h)) corrupt(filter_type, "libwebp cannot read the image header", in_at);
      if (static_cast<std::size_t>(w) * pixel_depth() != x_extent || static_cast<std::size_t>(h) != y_extent)
        corrupt(filter_type, "image is " + std::to_string(w) + " x " + std::to_string(h) + " pixels, the filter's " +
                                 std::to_string(x_extent / pixel_depth()) + " x " + std::to_string(y_extent),
                in_at);
      auto* dest = reinterpret_cast<std::uint8_t*>(out.data() + i * image);
      const int stride = x_extent;
      std::uint8_t* done = nullptr;
      switch (format) {
      case webp_format::rgb: done = WebPDecodeRGBInto(data, len, dest, image, stride); break;
      case webp_format::bgr: done = WebPDecodeBGRInto(data, len, dest, image, stride); break;
      case webp_format::rgba: done = WebPDecodeRGBAInto(data, len, dest, image, stride); break;
      case webp_format::bgra: done = WebPDecodeBGRAInto(data, len, dest, image, stride); break;
      default: break;
      }
      if (!done) corrupt(filter_type, "libwebp cannot decode the image", in_at);
      in_at += len;
    }
    io.out_metadata = io.metadata.subspan(used);
    io.out_data = out;
  }

private:
  template <class Fail>
  void check(format::Datatype type, Fail&& fail) const {
    if (type != format::Datatype::UINT8)
      fail("input must be UINT8, not " + std::string(format::codec_enum_name(type)));
    if (format == webp_format::none) fail("the input format (RGB, BGR, RGBA or BGRA) is not set");
    if (format > webp_format::bgra) fail("invalid input format " + std::to_string(static_cast<int>(format)));
    if (x_extent % pixel_depth() != 0)
      fail("row of " + std::to_string(x_extent) + " bytes is not whole " + std::to_string(pixel_depth()) + "-byte pixels");
    if (y_extent > 16383 || x_extent / pixel_depth() > 16383) fail("images are at most 16383 x 16383 pixels");
  }
#else
  void forward(forward_io&) const { detail::webp_unsupported(); }
  void reverse(reverse_io&) const { detail::webp_unsupported(); }
#endif
};

} // namespace tilefmt::filter
