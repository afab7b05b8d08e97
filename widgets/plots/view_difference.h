#pragma once
// The difference image of two runs' final images for Compare: the largest channel |a - b| of
// each pixel times a gain, clamped to 255, as grey; a pixel that is non-finite in either image
// is marked (NaN magenta, else Inf cyan) instead, since its RGB is the engine's marker colour,
// not a value.
#include <QString>

#include "records/run_types.h"

struct ViewDifference {
    hs::PreviewImage image;  // empty (width 0) when the inputs cannot be compared
    double gain = 1;         // the gain applied
    int maxDiff = 0;         // largest |a - b| of a channel over the finite pixels, 0..255
    double meanDiff = 0;     // mean |a - b| over the channels of the finite pixels
    qint64 nonFinite = 0;    // pixels non-finite in either image
    QString error;           // why there is no image (sizes differ, an image is missing)
};

// gain <= 0 picks one: 255 / maxDiff, clamped to [1, 64], so small differences become visible.
ViewDifference viewDifference(const hs::PreviewImage& a, const hs::PreviewImage& b, double gain);
