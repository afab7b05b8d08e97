#include "file_set.h"

#include <QFileInfo>
#include <set>

// LibTorch through its wrapper first (see torch_include.h).
// clang-format off
#include "torch_include.h"
#include "models/registry.h"
#include "models/single_file.h"
// clang-format on

namespace {

QString nameOf(const QString& path) {
    return QFileInfo(path).fileName();
}

// The words of the weight slots of hs::modelFileSlots(), the parts of a model a companion file
// can give, for the translators (lupdate reads Qt code only).
[[maybe_unused]] const char* const kSlotWords[] = {
    QT_TRANSLATE_NOOP("FileSet", "VAE"), QT_TRANSLATE_NOOP("FileSet", "first text encoder"),
    QT_TRANSLATE_NOOP("FileSet", "second text encoder"),
    QT_TRANSLATE_NOOP("FileSet", "third text encoder")};

struct Held {
    QString path;
    bool denoiser = false;
    std::set<std::string> slotNames;
    QStringList parts;  // "transformer (FluxTransformer2DModel)", for messages
};

// The engine's message without the C++ backtrace c10 appends, and without the path it starts
// with (the sentence around it names the file).
QString firstLine(const std::exception& e, const QString& path) {
    QString text = QString::fromStdString(e.what());
    const int nl = text.indexOf('\n');
    if (nl > 0) text = text.left(nl);
    if (text.startsWith(path + ": ")) text = text.mid(path.size() + 2);
    return text;
}

}  // namespace

FileSet sortModelFiles(const QStringList& paths) {
    FileSet set;
    if (paths.isEmpty()) {
        set.error = FileSet::tr("No files were given.");
        return set;
    }
    std::vector<Held> files;
    for (const QString& path : paths) {
        const QFileInfo info(path);
        if (!info.isFile()) {
            set.error = FileSet::tr("%1 is not a file.").arg(path);
            return set;
        }
        Held h;
        h.path = info.absoluteFilePath();
        try {
            for (const auto& c : hs::readSingleFile(h.path.toStdString()).components) {
                const auto family = hs::FamilyRegistry::global().find(c.className);
                h.denoiser |= family && family->role == hs::Role::Denoiser;
                h.slotNames.insert(c.slot);
                h.parts << QString("%1 (%2)").arg(QString::fromStdString(c.slot),
                                                  QString::fromStdString(c.className));
            }
        } catch (const std::exception& e) {
            set.error = FileSet::tr("%1 is not a model file Halfscope can open: %2")
                            .arg(nameOf(path), firstLine(e, h.path));
            return set;
        }
        files.push_back(std::move(h));
    }

    const Held* model = nullptr;
    for (const Held& h : files) {
        if (!h.denoiser) continue;
        if (model) {
            set.error = FileSet::tr(
                            "%1 and %2 both hold a denoiser (the model itself): open one model at "
                            "a time, with its VAE and text encoders.")
                            .arg(nameOf(model->path), nameOf(h.path));
            return set;
        }
        model = &h;
    }
    if (!model) {
        QStringList held;
        for (const Held& h : files)
            held << QString("%1: %2").arg(nameOf(h.path), h.parts.join(", "));
        set.error = FileSet::tr(
                        "None of the files holds a denoiser (a transformer or UNet, such as "
                        "flux1-dev.safetensors), so there is no model to open. The files hold %1. "
                        "Add the model file to the set.")
                        .arg(held.join("; "));
        return set;
    }
    set.model = model->path;

    for (const Held& h : files) {
        if (&h == model) continue;
        bool used = false;
        for (const hs::ModelFileSlot& p : hs::modelFileSlots()) {
            if (p.tokenizer || !h.slotNames.count(p.slot)) continue;
            std::string& given = set.with.*p.path;
            if (!given.empty()) {
                set.error = FileSet::tr("%1 and %2 both hold the %3: pick one of them.")
                                .arg(nameOf(QString::fromStdString(given)), nameOf(h.path),
                                     FileSet::tr(p.what));
                return set;
            }
            given = h.path.toStdString();
            used = true;
        }
        if (!used) {
            set.error = FileSet::tr(
                            "%1 holds %2, which is not a part a model file set takes (a VAE or "
                            "a text encoder).")
                            .arg(nameOf(h.path), h.parts.join(", "));
            return set;
        }
    }
    return set;
}

QVector<FileRole> fileRoles(const QString& model, const hs::ModelFiles& with) {
    QVector<FileRole> roles;
    if (with.empty()) return roles;
    roles.push_back({"model", model});
    for (const auto& s : hs::modelFileSlots())
        if (!(with.*s.path).empty()) roles.push_back({s.slot, QString::fromStdString(with.*s.path)});
    return roles;
}
