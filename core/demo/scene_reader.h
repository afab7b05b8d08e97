#pragma once
// Reads a generated demo picture back into the world's terms, to measure prompt following:
// background colour, the object's colour, position and shape. Single-object scenes. std only.
#include <cstdint>
#include <vector>

#include "demo/world.h"

namespace hs::demo {

struct SceneReading {
    bool objectFound = false;  // some pixels differ clearly from the background
    int background = -1;       // palette index
    int colour = -1;           // palette index of the object
    Position position = Position::Centre;
    Shape shape = Shape::Circle;
    Size size = Size::Large;
    double shapeIoU = 0;  // soft IoU of the best-matching rendered mask
};

// rgb: [size][size][3] 8-bit. The background is the median of the border pixels; each pixel's
// coverage is its projection onto the background -> object colour line (anti-aliasing kept);
// the position is the nearest canonical centre to the coverage centroid; the shape is the one
// whose rendered mask (either size, shifted up to 3 px) has the highest soft IoU.
SceneReading readScene(const std::vector<uint8_t>& rgb, int size);

// Index of the palette colour nearest to `rgb` ([0, 1]); `exclude` is never returned.
int nearestColour(const float rgb[3], int exclude = -1);

// Tallies of readings against the scenes that were asked for.
struct PromptFollowing {
    int scenes = 0;
    int background = 0, colour = 0, position = 0, size = 0;
    int shapeTotal[5] = {0, 0, 0, 0, 0};  // by Shape
    int shapeCorrect[5] = {0, 0, 0, 0, 0};
    void add(const SceneObject& asked, int askedBackground, const SceneReading& got);
    double rate(int n) const { return scenes ? double(n) / scenes : 0.0; }
    // Over circle, square and triangle (the target), and per shape.
    double basicShapeRate() const;
    double shapeRate(Shape s) const;
};

}  // namespace hs::demo
