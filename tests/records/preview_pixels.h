#pragma once
// Preview images painted pixel by pixel, for the records', the history's and the widgets' tests.
#include <array>
#include <cstddef>
#include <cstdint>

#include "records/run_types.h"

namespace hs::test {

// A w x h preview of `step` (a full decode when `full`) whose pixel (x, y) is `rgb(x, y)`, an
// {r, g, b} array; `nonFinite(x, y)` gives each pixel's mark (0 finite, 1 NaN, 2 Inf).
template <class Rgb, class Mark>
PreviewImage paintedPreview(int w, int h, int step, bool full, Rgb rgb, Mark nonFinite) {
    PreviewImage p;
    p.width = w;
    p.height = h;
    p.step = step;
    p.fullDecode = full;
    p.rgb.resize(size_t(w) * h * 3);
    p.nonFinite.assign(size_t(w) * h, 0);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::array<int, 3> c = rgb(x, y);
            uint8_t* px = p.rgb.data() + (size_t(y) * w + x) * 3;
            px[0] = uint8_t(c[0]), px[1] = uint8_t(c[1]), px[2] = uint8_t(c[2]);
            p.nonFinite[size_t(y) * w + x] = uint8_t(nonFinite(x, y));
        }
    return p;
}

// The same with every pixel finite.
template <class Rgb>
PreviewImage paintedPreview(int w, int h, int step, bool full, Rgb rgb) {
    return paintedPreview(w, h, step, full, rgb, [](int, int) { return 0; });
}

}  // namespace hs::test
