#pragma once
// The procedural world of the embedded demo model: scenes of one or two coloured shapes on a
// coloured background, a caption grammar that describes them, and an anti-aliased renderer.
// Deterministic by seed; std only, so the trainer, the tests and the quality check share it.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hs::demo {

enum class Shape { Circle, Square, Triangle, Ring, Star };
enum class Size { Small, Large };
enum class Position { Left, Right, Top, Bottom, Centre };

struct Colour {
    const char* name;
    std::array<float, 3> rgb;  // [0, 1]
};

const std::vector<Colour>& palette();  // red, green, blue, yellow, white, orange, purple, black
const std::vector<std::string>& shapeNames();
const std::vector<std::string>& sizeNames();
const std::vector<std::string>& positionPhrases();  // "on the left", ..., "in the centre"

struct SceneObject {
    Shape shape = Shape::Circle;
    int colour = 0;  // index into palette()
    Size size = Size::Large;
    Position position = Position::Centre;
    float dx = 0, dy = 0;  // small jitter of the centre, in pixels
};

struct Scene {
    int background = 4;                // index into palette()
    std::vector<SceneObject> objects;  // one or two, at different positions and colours
    // Every attribute in one fixed phrasing: "a large red circle on the left, blue background"
    // (caption_grammar.h has the many others).
    std::string caption() const;
};

// The size the trainer draws scenes at. A checkpoint runs at its own VAE's sample_size (the
// shipped one predates this and is 64).
constexpr int kImageSize = 128;

// A random scene; the same seed gives the same scene on every machine.
Scene randomScene(uint64_t seed);

// RGB, row-major [H][W][3] in [0, 1], 4x4 supersampled.
std::vector<float> render(const Scene& scene, int size = kImageSize);
// Coverage in [0, 1] of one object ([H][W]), drawn alone at the scene's place and size.
std::vector<float> renderMask(const SceneObject& obj, int size = kImageSize);
// Centre and radius in pixels for an object in an image of `size` pixels.
void placement(const SceneObject& obj, int size, float& cx, float& cy, float& radius);

}  // namespace hs::demo
