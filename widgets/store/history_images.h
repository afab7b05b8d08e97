#pragma once
// The image files of the run history: a PreviewImage's RGB pixels as an 8-bit RGB PNG, and its
// non-finite mask (0 finite, 1 NaN, 2 Inf per pixel) as an 8-bit grey PNG beside it when any
// pixel is non-finite. Files are written with QSaveFile: a crash leaves the old file or none,
// never half a PNG.
#include <QString>

#include "records/run_types.h"

namespace history {

// The file that `stored`, a path read from the history database (relative to the data folder),
// names under the data folder `dir`; empty when it is not a plain relative path inside it:
// absolute ("/x", "C:/x", "\\server\x"), with a ".." part, or with a control character. The
// database may have been copied from elsewhere or written by another program, so its paths are
// never trusted to stay inside: a path refused here is neither read nor removed.
QString dataFilePath(const QString& dir, const QString& stored);

// Write the RGB pixels / the mask of `image` as a PNG to `path`. False and `error` on failure.
bool writeRgbPng(const QString& path, const hs::PreviewImage& image, QString* error);
bool writeMaskPng(const QString& path, const hs::PreviewImage& image, QString* error);

// Reads the pixels back into `image` (width/height must already be set; they are checked). Only
// a regular file (or a symlink to one) of at most 256 MB is read: a FIFO or a device in its
// place is refused before it is opened.
bool readRgbPng(const QString& path, hs::PreviewImage& image, QString* error);
bool readMaskPng(const QString& path, hs::PreviewImage& image, QString* error);

// How the mask is kept: not at all (the image had none), all-finite (none stored, zeros on
// load), or in a file.
enum class MaskKind { None = 0, AllFinite = 1, File = 2 };
MaskKind maskKindOf(const hs::PreviewImage& image);
int nonFinitePixels(const hs::PreviewImage& image);

}  // namespace history
