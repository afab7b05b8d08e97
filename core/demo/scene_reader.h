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
// whose rendered mask (either size, shifted up to 3 units of the 64-pixel canvas) has the
// highest soft IoU.
SceneReading readScene(const std::vector<uint8_t>& rgb, int size);

// Index of the palette colour nearest to `rgb` ([0, 1]); `exclude` is never returned.
int nearestColour(const float rgb[3], int exclude = -1);

// Tallies of readings against the scenes that were asked for. Background, position and size
// count only where the prompt stated them (an unstated one is the model's choice).
struct PromptFollowing {
    int scenes = 0;
    int found = 0;  // an object was drawn at all
    int colour = 0;
    int backgroundStated = 0, background = 0;
    int positionStated = 0, position = 0;
    int sizeStated = 0, size = 0;
    int shapeTotal[5] = {0, 0, 0, 0, 0};  // by Shape
    int shapeCorrect[5] = {0, 0, 0, 0, 0};
    void add(const SceneObject& asked, int askedBackground, const SceneReading& got,
             bool backgroundWasStated = true, bool positionWasStated = true,
             bool sizeWasStated = true);
    static double rate(int n, int of) { return of ? double(n) / of : 0.0; }
    double shapeRate() const;  // over all five shapes
    double shapeRate(Shape s) const;
};

}  // namespace hs::demo
