#pragma once
// The image files of the run history: a PreviewImage's RGB pixels as an 8-bit RGB PNG, and its
// non-finite mask (0 finite, 1 NaN, 2 Inf per pixel) as an 8-bit grey PNG beside it when any
// pixel is non-finite. Files are written with QSaveFile: a crash leaves the old file or none,
// never half a PNG.
#include <QString>

#include "records/run_types.h"

namespace history {

// Write the RGB pixels / the mask of `image` as a PNG to `path`. False and `error` on failure.
bool writeRgbPng(const QString& path, const hs::PreviewImage& image, QString* error);
bool writeMaskPng(const QString& path, const hs::PreviewImage& image, QString* error);

// Reads the pixels back into `image` (width/height must already be set; they are checked).
bool readRgbPng(const QString& path, hs::PreviewImage& image, QString* error);
bool readMaskPng(const QString& path, hs::PreviewImage& image, QString* error);

// How the mask is kept: not at all (the image had none), all-finite (none stored, zeros on
// load), or in a file.
enum class MaskKind { None = 0, AllFinite = 1, File = 2 };
MaskKind maskKindOf(const hs::PreviewImage& image);
int nonFinitePixels(const hs::PreviewImage& image);

}  // namespace history
