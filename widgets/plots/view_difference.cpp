#include "view_difference.h"

#include <QCoreApplication>
#include <algorithm>
#include <cstdlib>

#include "view_format.h"

ViewDifference viewDifference(const hs::PreviewImage& a, const hs::PreviewImage& b, double gain) {
    ViewDifference d;
    auto valid = [](const hs::PreviewImage& p) {
        return p.width > 0 && p.height > 0 && p.rgb.size() == size_t(p.width) * p.height * 3;
    };
    if (!valid(a) || !valid(b)) {
        d.error = QCoreApplication::translate("CompareView", "Both runs need a final image.");
        return d;
    }
    if (a.width != b.width || a.height != b.height) {
        d.error = QCoreApplication::translate("CompareView",
                                              "The images differ in size (%1x%2 and %3x%4).")
                      .arg(a.width)
                      .arg(a.height)
                      .arg(b.width)
                      .arg(b.height);
        return d;
    }
    const size_t n = size_t(a.width) * a.height;
    auto mask = [](const hs::PreviewImage& p, size_t i) -> uint8_t {
        return i < p.nonFinite.size() ? p.nonFinite[i] : 0;
    };
    // First pass: the statistics of the finite pixels (and the automatic gain).
    double sum = 0;
    qint64 channels = 0;
    for (size_t i = 0; i < n; ++i) {
        if (mask(a, i) || mask(b, i)) {
            ++d.nonFinite;
            continue;
        }
        for (int c = 0; c < 3; ++c) {
            const int diff = std::abs(int(a.rgb[i * 3 + c]) - int(b.rgb[i * 3 + c]));
            d.maxDiff = std::max(d.maxDiff, diff);
            sum += diff;
            ++channels;
        }
    }
    d.meanDiff = channels ? sum / channels : 0;
    d.gain = gain > 0 ? gain : (d.maxDiff > 0 ? std::clamp(255.0 / d.maxDiff, 1.0, 64.0) : 1.0);

    hs::PreviewImage& out = d.image;
    out.width = a.width;
    out.height = a.height;
    out.step = -1;
    out.fullDecode = true;
    out.rgb.resize(n * 3);
    out.nonFinite.assign(n, 0);
    const QColor nanC = viewNanColor(), infC = viewInfColor();
    for (size_t i = 0; i < n; ++i) {
        const uint8_t ma = mask(a, i), mb = mask(b, i);
        uint8_t* dst = out.rgb.data() + i * 3;
        if (ma || mb) {
            const bool nan = ma == 1 || mb == 1;
            out.nonFinite[i] = nan ? 1 : 2;
            const QColor& c = nan ? nanC : infC;
            dst[0] = uint8_t(c.red()), dst[1] = uint8_t(c.green()), dst[2] = uint8_t(c.blue());
            continue;
        }
        // Grey levels (the largest channel difference): a coloured difference could look like
        // the magenta/cyan markers of non-finite pixels.
        int diff = 0;
        for (int c = 0; c < 3; ++c)
            diff = std::max(diff, std::abs(int(a.rgb[i * 3 + c]) - int(b.rgb[i * 3 + c])));
        dst[0] = dst[1] = dst[2] = uint8_t(std::min(255.0, diff * d.gain + 0.5));
    }
    return d;
}
