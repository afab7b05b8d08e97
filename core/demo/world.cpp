#include "demo/world.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <sstream>

namespace hs::demo {

const std::vector<Colour>& palette() {
    static const std::vector<Colour> p = {
        {"red", {0.90f, 0.10f, 0.10f}},    {"green", {0.10f, 0.70f, 0.20f}},
        {"blue", {0.15f, 0.25f, 0.95f}},   {"yellow", {0.98f, 0.90f, 0.10f}},
        {"white", {0.97f, 0.97f, 0.97f}},  {"orange", {1.00f, 0.55f, 0.05f}},
        {"purple", {0.55f, 0.15f, 0.75f}}, {"black", {0.05f, 0.05f, 0.05f}},
    };
    return p;
}

const std::vector<std::string>& shapeNames() {
    static const std::vector<std::string> s = {"circle", "square", "triangle", "ring", "star"};
    return s;
}

const std::vector<std::string>& sizeNames() {
    static const std::vector<std::string> s = {"small", "large"};
    return s;
}

const std::vector<std::string>& positionPhrases() {
    static const std::vector<std::string> s = {"on the left", "on the right", "at the top",
                                               "at the bottom", "in the centre"};
    return s;
}

std::string Scene::caption() const {
    std::ostringstream c;
    for (size_t i = 0; i < objects.size(); ++i) {
        const auto& o = objects[i];
        c << (i ? " and a " : "a ") << sizeNames()[int(o.size)] << ' ' << palette()[o.colour].name
          << ' ' << shapeNames()[int(o.shape)] << ' ' << positionPhrases()[int(o.position)];
    }
    c << ", " << palette()[background].name << " background";
    return c.str();
}

Scene randomScene(uint64_t seed) {
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 1);
    auto pick = [&](int n) { return int(rng() % uint64_t(n)); };
    Scene s;
    const int nColours = int(palette().size());
    s.background = pick(nColours);
    const int count = pick(3) == 0 ? 2 : 1;  // a third of the scenes hold two objects
    std::set<int> usedPos, usedColour{s.background};
    for (int i = 0; i < count; ++i) {
        SceneObject o;
        o.shape = Shape(pick(5));
        do o.colour = pick(nColours);
        while (usedColour.count(o.colour));
        usedColour.insert(o.colour);
        int pos;
        do pos = pick(5);
        while (usedPos.count(pos));
        usedPos.insert(pos);
        o.position = Position(pos);
        o.size = count == 2 ? Size::Small : Size(pick(2));
        o.dx = float(pick(5) - 2);
        o.dy = float(pick(5) - 2);
        s.objects.push_back(o);
    }
    return s;
}

void placement(const SceneObject& o, int size, float& cx, float& cy, float& r) {
    const float u = float(size) / 64.f;  // geometry is designed on a 64-pixel canvas
    static const float pos[5][2] = {{16, 32}, {48, 32}, {32, 15}, {32, 49}, {32, 32}};
    cx = (pos[int(o.position)][0] + o.dx) * u;
    cy = (pos[int(o.position)][1] + o.dy) * u;
    r = (o.size == Size::Small ? 8.f : 13.f) * u;
}

namespace {

// Inside test for a point relative to the object's centre, in units of its radius.
bool inside(Shape s, float x, float y) {
    switch (s) {
        case Shape::Circle:
            return x * x + y * y <= 1.f;
        case Shape::Square:
            return std::fabs(x) <= 0.82f && std::fabs(y) <= 0.82f;
        case Shape::Ring: {
            float d = x * x + y * y;
            return d <= 1.f && d >= 0.5f * 0.5f;
        }
        case Shape::Triangle: {
            // Upward triangle with vertices (0,-1), (±0.95, 0.75).
            if (y > 0.75f || y < -1.f) return false;
            float half = 0.95f * (y + 1.f) / 1.75f;
            return std::fabs(x) <= half;
        }
        case Shape::Star: {
            // Five-pointed star: radius varies between 1 (points) and 0.45 (notches).
            float d = std::sqrt(x * x + y * y);
            if (d > 1.f) return false;
            float a = std::atan2(x, -y);  // 0 at the top point
            const float sector = 2.f * float(M_PI) / 5.f;
            float t = std::fmod(std::fabs(a), sector) / sector;  // 0 at a point, 0.5 at a notch
            float tt = std::fabs(t - 0.5f) * 2.f;                // 1 at a point, 0 at a notch
            float edge = 0.45f + 0.55f * tt;
            return d <= edge;
        }
    }
    return false;
}

constexpr int kSuper = 4;

}  // namespace

std::vector<float> renderMask(const SceneObject& o, int size) {
    std::vector<float> m(size_t(size) * size, 0.f);
    float cx, cy, r;
    placement(o, size, cx, cy, r);
    const int x0 = std::max(0, int(cx - r - 1)), x1 = std::min(size - 1, int(cx + r + 1));
    const int y0 = std::max(0, int(cy - r - 1)), y1 = std::min(size - 1, int(cy + r + 1));
    for (int py = y0; py <= y1; ++py)
        for (int px = x0; px <= x1; ++px) {
            int hits = 0;
            for (int sy = 0; sy < kSuper; ++sy)
                for (int sx = 0; sx < kSuper; ++sx) {
                    float x = (px + (sx + 0.5f) / kSuper - cx) / r;
                    float y = (py + (sy + 0.5f) / kSuper - cy) / r;
                    hits += inside(o.shape, x, y);
                }
            m[size_t(py) * size + px] = float(hits) / float(kSuper * kSuper);
        }
    return m;
}

std::vector<float> render(const Scene& s, int size) {
    std::vector<float> img(size_t(size) * size * 3);
    const auto& bg = palette()[s.background].rgb;
    for (size_t i = 0; i < size_t(size) * size; ++i)
        for (int c = 0; c < 3; ++c) img[i * 3 + c] = bg[c];
    for (const auto& o : s.objects) {
        auto m = renderMask(o, size);
        const auto& col = palette()[o.colour].rgb;
        for (size_t i = 0; i < m.size(); ++i) {
            if (m[i] == 0.f) continue;
            for (int c = 0; c < 3; ++c)
                img[i * 3 + c] = img[i * 3 + c] * (1 - m[i]) + col[c] * m[i];
        }
    }
    return img;
}

}  // namespace hs::demo
