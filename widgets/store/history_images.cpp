#include "history_images.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
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

// Far above any preview the studio writes (a 4096 x 4096 RGB PNG is at most ~50 MB).
constexpr qint64 kMaxImageFileBytes = qint64(256) << 20;

bool readImage(const QString& path, int channels, int width, int height, hs::Image& img,
               QString* error) {
    const QFileInfo info(path);  // follows symlinks
    if (info.exists() && (!info.isFile() || info.size() > kMaxImageFileBytes)) {
        *error = QCoreApplication::translate("RunHistory",
                                             "The image file %1 is not a regular file of at most "
                                             "256 MB; it was not read")
                     .arg(path);
        return false;
    }
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

QString dataFilePath(const QString& dir, const QString& stored) {
    if (stored.isEmpty() || QDir::isAbsolutePath(stored) || stored.startsWith(QLatin1Char('/')) ||
        stored.startsWith(QLatin1Char('\\')) ||
        (stored.size() >= 2 && stored[1] == QLatin1Char(':')))
        return {};
    for (const QChar c : stored)
        if (c.unicode() < 0x20 || c.unicode() == 0x7f) return {};
    // Both separators: a Windows build treats '\' as one, and the data folder may travel.
    const QStringList parts =
        QString(stored).replace(QLatin1Char('\\'), QLatin1Char('/')).split(QLatin1Char('/'));
    for (const QString& part : parts)
        if (part == QLatin1String("..")) return {};
    return dir + QLatin1Char('/') + stored;
}

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
