#pragma once
// Previews painted with QColors for the widgets' tests.
#include <QColor>
#include <array>

#include "../records/preview_pixels.h"
#include "view_format.h"

namespace hs::test {

// A w x h preview of `step` (a full decode when `full`) whose pixel (x, y) is `colour(x, y)`;
// the pixels with x >= nanFrom are NaN, magenta as the engine paints them.
template <class F>
PreviewImage colouredPreview(int step, int w, int h, F colour, bool full, int nanFrom = 1 << 30) {
    return paintedPreview(
        w, h, step, full,
        [&](int x, int y) -> std::array<int, 3> {
            const QColor c = x >= nanFrom ? viewNanColor() : colour(x, y);
            return {c.red(), c.green(), c.blue()};
        },
        [&](int x, int) { return x >= nanFrom ? 1 : 0; });
}

}  // namespace hs::test
