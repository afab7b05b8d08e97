#include "demo/scene_reader.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace hs::demo {

int nearestColour(const float rgb[3], int exclude) {
    int best = -1;
    double bestD = 1e9;
    for (int i = 0; i < int(palette().size()); ++i) {
        if (i == exclude) continue;
        const auto& p = palette()[i].rgb;
        double d = 0;
        for (int c = 0; c < 3; ++c) d += (rgb[c] - p[c]) * (rgb[c] - p[c]);
        if (d < bestD) bestD = d, best = i;
    }
    return best;
}

namespace {

using Rgb = std::array<float, 3>;

Rgb pixel(const std::vector<uint8_t>& rgb, size_t i) {
    return {rgb[i * 3] / 255.f, rgb[i * 3 + 1] / 255.f, rgb[i * 3 + 2] / 255.f};
}

float dist(const Rgb& a, const Rgb& b) {
    float d = 0;
    for (int c = 0; c < 3; ++c) d += (a[c] - b[c]) * (a[c] - b[c]);
    return std::sqrt(d);
}

// Per-channel median of the 2-pixel border: the background, even when an object touches it.
Rgb borderMedian(const std::vector<uint8_t>& rgb, int size) {
    std::array<std::vector<float>, 3> ch;
    for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x)
            if (x < 2 || y < 2 || x >= size - 2 || y >= size - 2) {
                const Rgb p = pixel(rgb, size_t(y) * size + x);
                for (int c = 0; c < 3; ++c) ch[c].push_back(p[c]);
            }
    Rgb m{};
    for (int c = 0; c < 3; ++c) {
        std::nth_element(ch[c].begin(), ch[c].begin() + ch[c].size() / 2, ch[c].end());
        m[c] = ch[c][ch[c].size() / 2];
    }
    return m;
}

double softIoU(const std::vector<float>& a, const std::vector<float>& b) {
    double inter = 0, uni = 0;
    for (size_t i = 0; i < a.size(); ++i)
        inter += std::min(a[i], b[i]), uni += std::max(a[i], b[i]);
    return uni > 0 ? inter / uni : 0.0;
}

}  // namespace

SceneReading readScene(const std::vector<uint8_t>& rgb, int size) {
    SceneReading r;
    const size_t n = size_t(size) * size;
    const Rgb bg = borderMedian(rgb, size);
    r.background = nearestColour(bg.data());

    // The object's colour: the median of the pixels farthest from the background (edge pixels
    // are mixtures of the two, and on soft pictures there are many of them).
    std::vector<float> d(n);
    float far = 0;
    for (size_t i = 0; i < n; ++i) far = std::max(far, d[i] = dist(pixel(rgb, i), bg));
    std::array<std::vector<float>, 3> ch;
    for (size_t i = 0; i < n; ++i) {
        if (d[i] < 0.25f || d[i] < 0.8f * far) continue;
        const Rgb p = pixel(rgb, i);
        for (int c = 0; c < 3; ++c) ch[c].push_back(p[c]);
    }
    if (ch[0].size() < 8) return r;  // nothing there
    Rgb obj{};
    for (int c = 0; c < 3; ++c) {
        std::nth_element(ch[c].begin(), ch[c].begin() + ch[c].size() / 2, ch[c].end());
        obj[c] = ch[c][ch[c].size() / 2];
    }
    r.objectFound = true;
    r.colour = nearestColour(obj.data(), r.background);

    // Coverage: projection of each pixel onto the segment bg -> obj, clamped to [0, 1].
    Rgb axis{};
    float len2 = 0;
    for (int c = 0; c < 3; ++c) axis[c] = obj[c] - bg[c], len2 += axis[c] * axis[c];
    std::vector<float> cover(n, 0.f);
    double sum = 0, sx = 0, sy = 0;
    for (size_t i = 0; i < n; ++i) {
        const Rgb p = pixel(rgb, i);
        float t = 0;
        for (int c = 0; c < 3; ++c) t += (p[c] - bg[c]) * axis[c];
        t = std::clamp(t / std::max(len2, 1e-6f), 0.f, 1.f);
        cover[i] = t;
        sum += t, sx += t * double(i % size), sy += t * double(i / size);
    }
    const double cx = sx / sum + 0.5, cy = sy / sum + 0.5;  // pixel centres

    // Position: the nearest canonical centre (placement() with no jitter).
    double best = 1e9;
    for (int p = 0; p < 5; ++p) {
        SceneObject o;
        o.position = Position(p);
        float px, py, pr;
        placement(o, size, px, py, pr);
        const double d = (px - cx) * (px - cx) + (py - cy) * (py - cy);
        if (d < best) best = d, r.position = Position(p);
    }

    // Shape and size: best soft IoU over shapes, sizes and small shifts.
    for (int s = 0; s < 5; ++s)
        for (int z = 0; z < 2; ++z)
            for (int dy = -3; dy <= 3; ++dy)  // the jitter is at most 2
                for (int dx = -3; dx <= 3; ++dx) {
                    SceneObject o;
                    o.shape = Shape(s);
                    o.size = Size(z);
                    o.position = r.position;
                    o.dx = float(dx);  // in 64-pixel canvas units, as the scene's jitter
                    o.dy = float(dy);
                    const double iou = softIoU(renderMask(o, size), cover);
                    if (iou > r.shapeIoU) r.shapeIoU = iou, r.shape = o.shape, r.size = o.size;
                }
    return r;
}

void PromptFollowing::add(const SceneObject& asked, int askedBackground, const SceneReading& got,
                          bool backgroundWasStated, bool positionWasStated, bool sizeWasStated) {
    ++scenes;
    ++shapeTotal[int(asked.shape)];
    backgroundStated += backgroundWasStated;
    positionStated += positionWasStated;
    sizeStated += sizeWasStated;
    if (backgroundWasStated) background += got.background == askedBackground;
    if (!got.objectFound) return;  // counts as wrong in every rate below
    ++found;
    colour += got.colour == asked.colour;
    if (positionWasStated) position += got.position == asked.position;
    if (sizeWasStated) size += got.size == asked.size;
    shapeCorrect[int(asked.shape)] += got.shape == asked.shape;
}

double PromptFollowing::shapeRate() const {
    int t = 0, c = 0;
    for (int s = 0; s < 5; ++s) t += shapeTotal[s], c += shapeCorrect[s];
    return rate(c, t);
}

double PromptFollowing::shapeRate(Shape s) const {
    return rate(shapeCorrect[int(s)], shapeTotal[int(s)]);
}

}  // namespace hs::demo
