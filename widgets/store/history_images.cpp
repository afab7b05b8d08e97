#include "history_images.h"

#include <QCoreApplication>
#include <QFile>
#include <QSaveFile>
#include <algorithm>
#include <exception>

#include "io/image_io.h"

namespace history {

namespace {

bool writeBytes(const QString& path, const std::vector<uint8_t>& bytes, QString* error) {
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) ||
        f.write(reinterpret_cast<const char*>(bytes.data()), qint64(bytes.size())) !=
            qint64(bytes.size()) ||
        !f.commit()) {
        *error = QCoreApplication::translate("RunHistory", "Cannot write the image file %1: %2")
                     .arg(path, f.errorString());
        return false;
    }
    return true;
}

bool writeImage(const QString& path, const hs::Image& img, QString* error) {
    try {
        return writeBytes(path, hs::encodePng(img), error);
    } catch (const std::exception& e) {
        *error = QCoreApplication::translate("RunHistory", "Cannot encode the image %1: %2")
                     .arg(path, QString::fromUtf8(e.what()));
        return false;
    }
}

bool readImage(const QString& path, int channels, int width, int height, hs::Image& img,
               QString* error) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QCoreApplication::translate("RunHistory", "Cannot read the image file %1: %2")
                     .arg(path, f.errorString());
        return false;
    }
    const QByteArray bytes = f.readAll();
    try {
        img = hs::decodeImage(reinterpret_cast<const uint8_t*>(bytes.constData()),
                              size_t(bytes.size()), channels, path.toStdString());
    } catch (const std::exception& e) {
        *error = QCoreApplication::translate("RunHistory", "The image file %1 is damaged: %2")
                     .arg(path, QString::fromUtf8(e.what()));
        return false;
    }
    if (img.width != width || img.height != height) {
        *error = QCoreApplication::translate(
                     "RunHistory", "The image file %1 is %2 x %3 pixels, the run recorded %4 x %5")
                     .arg(path)
                     .arg(img.width)
                     .arg(img.height)
                     .arg(width)
                     .arg(height);
        return false;
    }
    return true;
}

}  // namespace

bool writeRgbPng(const QString& path, const hs::PreviewImage& image, QString* error) {
    hs::Image img{image.width, image.height, 3, image.rgb};
    return writeImage(path, img, error);
}

bool writeMaskPng(const QString& path, const hs::PreviewImage& image, QString* error) {
    hs::Image img{image.width, image.height, 1, image.nonFinite};
    return writeImage(path, img, error);
}

bool readRgbPng(const QString& path, hs::PreviewImage& image, QString* error) {
    hs::Image img;
    if (!readImage(path, 3, image.width, image.height, img, error)) return false;
    image.rgb = std::move(img.pixels);
    return true;
}

bool readMaskPng(const QString& path, hs::PreviewImage& image, QString* error) {
    hs::Image img;
    if (!readImage(path, 1, image.width, image.height, img, error)) return false;
    image.nonFinite = std::move(img.pixels);
    return true;
}

MaskKind maskKindOf(const hs::PreviewImage& image) {
    if (image.nonFinite.empty()) return MaskKind::None;
    return nonFinitePixels(image) == 0 ? MaskKind::AllFinite : MaskKind::File;
}

int nonFinitePixels(const hs::PreviewImage& image) {
    return int(std::count_if(image.nonFinite.begin(), image.nonFinite.end(),
                             [](uint8_t v) { return v != 0; }));
}

}  // namespace history
