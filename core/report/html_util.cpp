#include "report/html_util.h"

#include <cmath>
#include <cstdio>

#include "io/image_io.h"
#include "report/base64.h"

namespace hs::html {

std::string esc(const std::string& s) {
    std::string o;
    o.reserve(s.size() + 8);
    for (char c : s) {
        switch (c) {
            case '&':
                o += "&amp;";
                break;
            case '<':
                o += "&lt;";
                break;
            case '>':
                o += "&gt;";
                break;
            case '"':
                o += "&quot;";
                break;
            case '\'':
                o += "&#39;";
                break;
            default:
                o += c;
        }
    }
    return o;
}

std::string num(double v) {
    if (std::isnan(v)) return "\u2014";
    if (std::isinf(v)) return v > 0 ? "\u221e" : "\u2212\u221e";
    char buf[64];
    const double a = std::fabs(v);
    if (a == 0) return "0";
    if (a >= 1e7 || a < 1e-3)
        std::snprintf(buf, sizeof buf, "%.3e", v);
    else if (a >= 1000)
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

std::string count(int64_t v) {
    std::string digits = std::to_string(v < 0 ? -v : v);
    std::string o;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) o += ',';
        o += digits[i];
    }
    return v < 0 ? "-" + o : o;
}

std::string pngDataUri(const PreviewImage& p) {
    const size_t pixels = size_t(std::max(p.width, 0)) * size_t(std::max(p.height, 0));
    if (pixels == 0 || p.rgb.size() != pixels * 3) return "";
    Image img{p.width, p.height, 3, p.rgb};
    return "data:image/png;base64," + base64Encode(encodePng(img));
}

}  // namespace hs::html
