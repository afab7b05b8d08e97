#include "reproduce_image.h"

// The engine's library headers name a member `slots`, which Qt defines as a macro.
#pragma push_macro("slots")
#undef slots
#include "library/library_cache.h"
#include "library/library_file_set.h"
#include "library/library_lookup.h"
#include "library/library_scan.h"
#pragma pop_macro("slots")

#include <QAction>
#include <QDeadlineTimer>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLayout>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSplitter>
#include <QThread>
#include <QUrl>
#include <algorithm>
#include <exception>

#include "image_view.h"
#include "io/image_io.h"
#include "log_panel.h"
#include "prompt_panel.h"
#include "reproduce/reproduce.h"
#include "reproduce/reproduce_run.h"
#include "studio.h"
#include "studio_settings.h"
#include "studio_text.h"

// What the lookup thread hands back: the settings with `resolved` filled, and the entries the
// files were found among. It owns copies of everything, so it may outlive the window.
struct ReproduceImage::Lookup {
    hs::ReproduceSettings settings;
    hs::LibraryReport library;
    std::string error;  // the scan or the hashing failed
    std::string cacheNote;
};

namespace {

std::vector<std::string> stdStrings(const QStringList& v) {
    std::vector<std::string> out;
    for (const auto& s : v) out.push_back(s.toStdString());
    return out;
}

// The prompt panel's sampler for the image's ComfyUI sampler and scheduler, among `offered`
// (RunConfig::scheduler ids: the model's scheduler config's samplers); "" when none fits.
QString panelSampler(const hs::ReproduceSettings& s, const QStringList& offered) {
    struct Choice {
        const char* sampler;
        const char* scheduler;  // "" any
        const char* id;
    };
    static const Choice kChoices[] = {{"dpmpp_2m", "karras", "dpmpp_2m_karras"},
                                      {"dpmpp_2m", "", "dpmpp_2m"},
                                      {"euler", "", "euler"},
                                      {"euler_ancestral", "", "euler_a"},
                                      {"ddim", "", "ddim"}};
    for (const Choice& c : kChoices)
        if (s.sampler == c.sampler && (!*c.scheduler || s.scheduler == c.scheduler))
            return offered.contains(c.id) ? QString(c.id) : QString();
    return offered.contains(qs(s.sampler)) ? qs(s.sampler) : QString();
}

}  // namespace

ReproduceImage::ReproduceImage(Studio& studio, const StudioViews& views, QAction* library,
                               QWidget* window)
    : QObject(window),
      m_studio(studio),
      m_prompt(views.prompt),
      m_log(views.log),
      m_library(library),
      m_window(window),
      m_action(new QAction(tr("&Reproduce image..."), this)),
      m_original(new ImageView) {
    m_action->setObjectName("reproduceImageAction");
    m_action->setToolTip(tr("Read how a PNG was made (ComfyUI, A1111, Forge) and run it again"));
    connect(m_action, &QAction::triggered, this, &ReproduceImage::chooseImage);
    connect(&m_studio, &Studio::modelLoaded, this, &ReproduceImage::onModelLoaded);
    // The Studio is destroyed before this (created first in the window): the guard, not a reset.
    m_studio.setRunAmendment([self = QPointer<ReproduceImage>(this)](hs::RunConfig& cfg) {
        if (self) self->amendRun(cfg);
    });
    window->setAcceptDrops(true);
    window->installEventFilter(this);

    // The original beside the final image, where the two are compared at a glance.
    m_original->setObjectName("originalImage");
    m_original->setTitle(tr("Original image"));
    m_original->hide();
    QWidget* finalImage = views.image;
    if (auto* split = qobject_cast<QSplitter*>(finalImage->parentWidget()))
        split->insertWidget(split->indexOf(finalImage) + 1, m_original);
    else if (finalImage->parentWidget() && finalImage->parentWidget()->layout())
        finalImage->parentWidget()->layout()->addWidget(m_original);
    else
        m_original->setParent(window);
}

ReproduceImage::~ReproduceImage() {
    // A lookup in flight stops at its next folder entry; one hashing a large file is not waited
    // for past a second (it owns what it reads and deletes itself when done).
    if (m_thread && m_cancel) {
        m_cancel->store(true);
        if (m_thread->wait(QDeadlineTimer(kCloseWaitMs))) {
            delete m_thread;
            m_thread = nullptr;
        }
    }
    releaseThread();
}

QMessageBox* ReproduceImage::message() const {
    return m_message;
}

void ReproduceImage::releaseThread() {
    if (!m_thread) return;
    m_cancel->store(true);
    disconnect(m_thread, nullptr, this, nullptr);
    connect(m_thread, &QThread::finished, m_thread, &QObject::deleteLater);
    m_thread = nullptr;
}

QString ReproduceImage::imageOf(const QMimeData* mime) {
    if (!mime || !mime->hasUrls() || mime->urls().size() != 1) return QString();
    const QUrl url = mime->urls().first();
    if (!url.isLocalFile()) return QString();
    const QFileInfo info(url.toLocalFile());
    // JPEG and WebP too: the reader says why their metadata is not read.
    static const QStringList kImages{"png", "jpg", "jpeg", "webp"};
    return info.isFile() && kImages.contains(info.suffix().toLower()) ? info.absoluteFilePath()
                                                                      : QString();
}

bool ReproduceImage::eventFilter(QObject* watched, QEvent* event) {
    if (watched != m_window) return QObject::eventFilter(watched, event);
    const auto type = event->type();
    if (type == QEvent::DragEnter || type == QEvent::DragMove || type == QEvent::Drop) {
        auto* drop = static_cast<QDropEvent*>(event);
        const QString path = imageOf(drop->mimeData());
        if (path.isEmpty()) return QObject::eventFilter(watched, event);
        drop->acceptProposedAction();
        if (type == QEvent::Drop) reproduce(path);
        return true;
    }
    return QObject::eventFilter(watched, event);
}

void ReproduceImage::chooseImage() {
    const QString path =
        QFileDialog::getOpenFileName(m_window, tr("Reproduce image"), QString(),
                                     tr("Images with their settings (*.png);;All files (*)"));
    if (!path.isEmpty()) reproduce(path);
}

bool ReproduceImage::reproduce(const QString& path) {
    if (m_message) m_message->close();
    hs::ReproduceSettings s;
    try {
        s = hs::readReproduceSettings(path.toStdString());
    } catch (const std::exception& e) {
        const QString why = qs(e.what());
        m_log->error(tr("Cannot reproduce the image: %1").arg(why), "reproduce");
        showMessage(
            tr("The image's settings cannot be read, so nothing was changed.\n\n%1").arg(why),
            false);
        return false;
    }
    releaseThread();  // a lookup for an image before this one: its result is not wanted
    m_path = QFileInfo(path).absoluteFilePath();
    m_settings = std::make_unique<hs::ReproduceSettings>(std::move(s));
    m_pending = false;
    m_log->info(tr("Reproducing %1: its settings").arg(m_path), "reproduce");
    for (const QString& line : qs(hs::formatSettings(*m_settings)).split('\n', Qt::SkipEmptyParts))
        m_log->info("  " + line, "reproduce");
    // The panels show the image's settings now; the model's (its samplers, its sizes) once the
    // files are settled.
    applySettings(m_studio.model() ? &*m_studio.model() : nullptr, false);
    showOriginal(m_path);
    lookUp();
    return true;
}

void ReproduceImage::showOriginal(const QString& path) {
    hs::PreviewImage p;
    try {
        const hs::Image img = hs::readImage(path.toStdString(), 3);
        p.width = img.width;
        p.height = img.height;
        p.rgb = img.pixels;
        p.nonFinite.assign(size_t(img.width) * size_t(img.height), 0);
    } catch (const std::exception& e) {
        m_log->warning(tr("The image's picture cannot be shown: %1").arg(qs(e.what())),
                       "reproduce");
        m_original->hide();
        return;
    }
    m_original->setPicture(p, QFileInfo(path).fileName());
    m_original->setToolTip(tr("The image being reproduced: %1").arg(path));
    if (!m_original->isHidden()) return;
    m_original->show();
    // As wide as the final image, taken from the curves beside them.
    if (auto* split = qobject_cast<QSplitter*>(m_original->parentWidget())) {
        QList<int> sizes = split->sizes();
        const int at = split->indexOf(m_original);
        if (at > 0 && sizes.size() > at) {
            const int width = std::max(sizes[at - 1], 160);
            sizes[at] = width;
            sizes[0] = std::max(sizes[0] - width, 0);
            split->setSizes(sizes);
        }
    }
}

void ReproduceImage::lookUp() {
    const LibrarySources sources = StudioSettings().librarySources();
    hs::LibraryOptions o;
    o.comfyui = stdStrings(sources.comfyui);
    o.a1111 = stdStrings(sources.a1111);
    o.user = stdStrings(sources.user);
    o.cachePath = hs::defaultLibraryCachePath();
    auto result = std::make_shared<Lookup>();
    result->settings = *m_settings;
    if (result->settings.runFiles.empty()) {  // nothing to look for
        onLookedUp(*result);
        return;
    }
    m_log->info(tr("Looking for the image's files in the model library"), "reproduce");
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    auto cancel = m_cancel;
    m_thread = QThread::create([o, result, cancel]() mutable {
        o.cancel = cancel.get();
        // An exception leaving a thread ends the process: a lookup that fails says so instead.
        try {
            result->library = hs::scanLibrary(o);
            hs::LibraryCache cache(o.cachePath);
            hs::resolveImageFiles(result->settings, result->library, hs::sha256Through(cache));
            try {
                cache.save();
            } catch (const std::exception& e) {
                result->cacheNote = e.what();
            }
        } catch (const std::exception& e) {
            result->error = e.what();
        } catch (...) {
            result->error = "an unknown error";
        }
    });
    connect(m_thread, &QThread::finished, this, [this, result] {
        m_thread->deleteLater();
        m_thread = nullptr;
        onLookedUp(*result);
    });
    m_thread->start();
}

QString ReproduceImage::searchedFolders() const {
    const LibrarySources s = StudioSettings().librarySources();
    QStringList lines;
    for (const auto& d : hs::defaultHfCaches()) lines << tr("Hugging Face cache: %1").arg(qs(d));
    for (const auto& d : s.comfyui) lines << tr("ComfyUI: %1").arg(d);
    for (const auto& d : s.a1111) lines << tr("A1111 / Forge: %1").arg(d);
    for (const auto& d : s.user) lines << tr("added: %1").arg(d);
    if (lines.isEmpty())
        lines << tr("(no folders: add your ComfyUI or A1111 folder in the model library)");
    return "  " + lines.join("\n  ");
}

void ReproduceImage::onLookedUp(const Lookup& result) {
    if (!m_settings) return;
    if (!result.error.empty()) {
        m_log->error(tr("The model library could not be searched: %1").arg(qs(result.error)),
                     "reproduce");
        showMessage(tr("The model library could not be searched for the image's files: %1")
                        .arg(qs(result.error)),
                    true);
        return;
    }
    if (!result.cacheNote.empty())
        m_log->warning(tr("The library cache was not written: %1").arg(qs(result.cacheNote)),
                       "reproduce");
    *m_settings = result.settings;
    const hs::ReproduceSettings& s = *m_settings;
    if (s.runFiles.empty()) {
        m_log->info(tr("The image names no model file: its settings go to the open model"),
                    "reproduce");
        keepCurrentModel();
        return;
    }
    QStringList missing;
    for (const std::string& f : hs::missingRunFiles(s)) missing << qs(f);
    for (const auto& [f, path] : s.resolved)
        if (!path.empty()) m_log->info(tr("%1: found at %2").arg(qs(f), qs(path)), "reproduce");
    if (!missing.isEmpty()) {
        m_log->warning(tr("The image's model files were not found: %1").arg(missing.join(", ")),
                       "reproduce");
        showMessage(tr("The image's model files were not found in the model library:\n  %1\n\n"
                       "Searched:\n%2\n\nThe image's settings are in the panels. Add the folder "
                       "that holds the files in the model library, or keep the current model.")
                        .arg(missing.join("\n  "), searchedFolders()),
                    true);
        return;
    }
    const hs::LibraryFileSet set = hs::assembleFileSet(hs::entriesOfRunFiles(s, result.library));
    if (!set.complete()) {
        QString why = qs(set.error);
        for (const std::string& part : set.missing) why += "\n  " + qs(part);
        m_log->warning(tr("The image's files do not make a model: %1").arg(why), "reproduce");
        showMessage(tr("The image's files were found but do not make a model: %1\n\nThe image's "
                       "settings are in the panels. Pick the files in the model library, or "
                       "keep the current model.")
                        .arg(why),
                    true);
        return;
    }
    const QString model = qs(set.model);
    const auto& open = m_studio.model();
    if (open && open->dir == model && open->files == set.with) {
        m_log->info(tr("The image's files are the open model: it is kept"), "reproduce");
        keepCurrentModel();
        return;
    }
    m_pending = true;  // applied when the set has loaded (its defaults replace the panel's)
    m_studio.openModel(model, set.with);
}

void ReproduceImage::keepCurrentModel() {
    m_pending = false;
    applySettings(m_studio.model() ? &*m_studio.model() : nullptr, true);
}

void ReproduceImage::onModelLoaded(const LoadedModel& m) {
    // The image's files, or the ones the user picked in the library after some were missing.
    if (m.planChange) return;
    if (!m_pending || !m_settings) {
        if (m_reproduced && m.dir != m_reproducedModel) clearOriginal();  // another model
        return;
    }
    m_pending = false;
    applySettings(&m, true);
}

void ReproduceImage::amendRun(hs::RunConfig& cfg) {
    if (!m_reproduced) return;
    const hs::RunConfig& r = *m_reproduced;
    const auto& open = m_studio.model();
    const bool reproduction = open && open->dir == m_reproducedModel && cfg.prompt == r.prompt &&
                              cfg.negativePrompt == r.negativePrompt && cfg.seed == r.seed &&
                              cfg.steps == r.steps && cfg.guidance == r.guidance &&
                              cfg.width == r.width && cfg.height == r.height &&
                              cfg.shift == r.shift && cfg.scheduler == r.scheduler;
    if (!reproduction) {
        clearOriginal();
        return;
    }
    if (m_comfySampler.empty()) return;
    cfg.scheduler.clear();
    cfg.comfySampler = m_comfySampler;
    cfg.comfyScheduler = m_comfyScheduler;
    m_log->info(
        tr("The reproduction runs ComfyUI's sampler %1 on its %2 schedule")
            .arg(qs(m_comfySampler), qs(m_comfyScheduler.empty() ? "normal" : m_comfyScheduler)),
        "reproduce");
}

void ReproduceImage::clearOriginal() {
    m_reproduced.reset();
    m_comfySampler.clear();
    m_comfyScheduler.clear();
    m_original->clear();
    m_original->hide();
}

void ReproduceImage::applySettings(const LoadedModel* model, bool notes) {
    const hs::ReproduceSettings& s = *m_settings;
    hs::RunConfig cfg;
    m_prompt->applyTo(cfg);
    QStringList said;
    for (const std::string& n : hs::applyImageSettings(s, {}, cfg)) said << qs(n);
    for (const std::string& u : s.unsupported) said << tr("not reproduced: %1").arg(qs(u));
    m_comfySampler.clear();
    m_comfyScheduler.clear();
    const QString asked = qs(s.sampler + (s.scheduler.empty() ? "" : " + " + s.scheduler));
    if (model && !s.sampler.empty()) {
        cfg.scheduler.clear();
        if (model->comfySamplers || model->samplerIds.isEmpty()) {
            for (const std::string& n : hs::applyImageSampler(s, {}, model->comfySamplers, cfg))
                said << qs(n);
            m_comfySampler = cfg.comfySampler;  // the panels have no place for it: amendRun
            m_comfyScheduler = cfg.comfyScheduler;
        } else if (const QString id = panelSampler(s, model->samplerIds); !id.isEmpty()) {
            cfg.scheduler = id.toStdString();
            said << tr("the image's sampler %1 runs as %2, on the model's scheduler config "
                       "rather than ComfyUI's sigma schedule")
                        .arg(asked, model->samplerLabels.value(model->samplerIds.indexOf(id), id));
        } else {
            said << tr("the image's sampler %1 is not among this model's samplers: the model's "
                       "own scheduler runs")
                        .arg(asked);
        }
    }
    m_prompt->setFrom(cfg);
    hs::RunConfig shown;  // sizes snap to the model's multiples
    m_prompt->applyTo(shown);
    m_reproduced = std::make_unique<hs::RunConfig>(shown);
    m_reproducedModel = model ? model->dir : QString();
    if ((s.width && *s.width != shown.width) || (s.height && *s.height != shown.height))
        said << tr("the image's size %1 x %2 is %3 x %4 here: the model takes other sizes")
                    .arg(s.width.value_or(0))
                    .arg(s.height.value_or(0))
                    .arg(shown.width)
                    .arg(shown.height);
    if (!notes) return;
    for (const QString& n : said) m_log->warning(tr("Not as the image: %1").arg(n), "reproduce");
    if (!m_comfySampler.empty())
        m_log->info(tr("The image's sampler %1 runs as ComfyUI computes it").arg(asked),
                    "reproduce");
    m_log->info(tr("The image's settings are set: Generate runs them"), "reproduce");
}

void ReproduceImage::showMessage(const QString& text, bool offerLibrary) {
    if (m_message) m_message->close();
    auto* box = new QMessageBox(offerLibrary ? QMessageBox::Question : QMessageBox::Warning,
                                tr("Reproduce image"), text, QMessageBox::NoButton, m_window);
    box->setObjectName("reproduceMessage");
    box->setAttribute(Qt::WA_DeleteOnClose);
    if (offerLibrary) {
        QPushButton* library =
            box->addButton(tr("Open the model library..."), QMessageBox::ActionRole);
        library->setObjectName("reproduceOpenLibrary");
        QPushButton* keep = box->addButton(tr("Keep the current model"), QMessageBox::AcceptRole);
        keep->setObjectName("reproduceKeepModel");
        box->setEscapeButton(keep);
        // The library: the settings wait for the model the user opens there.
        connect(library, &QPushButton::clicked, this, [this] {
            m_pending = true;
            if (m_library) m_library->trigger();
        });
        connect(keep, &QPushButton::clicked, this, &ReproduceImage::keepCurrentModel);
    } else {
        box->addButton(QMessageBox::Ok);
    }
    m_message = box;
    box->open();
}
