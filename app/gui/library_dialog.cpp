#include "library_dialog.h"

// The engine's library headers name a member `slots`, which Qt defines as a macro.
#pragma push_macro("slots")
#undef slots
#include "library/library_cache.h"
#include "library/library_file_set.h"
#include "library/library_scan.h"
#pragma pop_macro("slots")

#include <QDeadlineTimer>
#include <QDialogButtonBox>
#include <QThread>
#include <QVBoxLayout>

#include "library_panel.h"
#include "studio.h"
#include "studio_settings.h"

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QStringList qsList(const std::vector<std::string>& v) {
    QStringList out;
    for (const auto& s : v) out << qs(s);
    return out;
}

std::vector<std::string> stdList(const QStringList& v) {
    std::vector<std::string> out;
    for (const auto& s : v) out.push_back(s.toStdString());
    return out;
}

LibraryRow rowOf(const hs::LibraryEntry& e) {
    LibraryRow r;
    r.name = qs(e.name);
    r.path = qs(e.path);
    r.source = qs(e.source);
    r.kind = qs(hs::entryKindName(e.kind));
    r.family = qs(e.family.empty() ? e.className : e.family);
    r.variant = qs(e.variant);
    r.layout = e.layouts.empty() ? r.kind : qsList(e.layouts).join("; ");
    r.dtype = qs(e.dtype);
    r.fp16Risk = qs(e.fp16Risk);
    r.parameters = e.parameters;
    r.bytes = e.bytes;
    r.error = qs(e.error);
    return r;
}

}  // namespace

LibraryDialog::LibraryDialog(Studio* studio, QWidget* parent)
    : QDialog(parent), m_studio(studio), m_panel(new LibraryPanel) {
    setWindowTitle(tr("Model library"));
    setObjectName("modelLibrary");
    resize(1100, 640);
    auto* close = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_panel, 1);
    layout->addWidget(close);
    m_panel->setSources(StudioSettings().librarySources());
    m_panel->setHfCaches(qsList(hs::defaultHfCaches()));
    connect(m_panel, &LibraryPanel::rescanRequested, this, &LibraryDialog::rescan);
    connect(m_panel, &LibraryPanel::stopRequested, this, &LibraryDialog::stop);
    connect(m_panel, &LibraryPanel::sourcesChanged, this, &LibraryDialog::onSourcesChanged);
    connect(m_panel, &LibraryPanel::picksChanged, this, &LibraryDialog::checkPicks);
    connect(m_panel, &LibraryPanel::openRequested, this, &LibraryDialog::open);
}

LibraryDialog::~LibraryDialog() {
    // A scan in flight ends at its next folder entry. One stuck in a single file system call (a
    // dead network mount, a huge header) is not waited for past a second: it owns copies of
    // everything it reads (options, report, flag), so it finishes on its own and its thread
    // object deletes itself then.
    if (m_thread) {
        m_cancel->store(true);
        disconnect(m_thread, nullptr, this, nullptr);
        if (m_thread->wait(QDeadlineTimer(kCloseWaitMs))) {
            delete m_thread;
        } else {
            connect(m_thread, &QThread::finished, m_thread, &QObject::deleteLater);
        }
    }
}

void LibraryDialog::showEvent(QShowEvent* event) {
    QDialog::showEvent(event);
    if (!m_scanned) rescan();
}

void LibraryDialog::rescan() {
    m_scanned = true;
    if (m_thread) {
        m_again = true;
        m_cancel->store(true);
        return;
    }
    m_panel->setHfCaches(qsList(hs::defaultHfCaches()));
    hs::LibraryOptions o;
    const LibrarySources& s = m_panel->sources();
    o.comfyui = stdList(s.comfyui);
    o.a1111 = stdList(s.a1111);
    o.user = stdList(s.user);
    o.cachePath = hs::defaultLibraryCachePath();
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    auto report = std::make_shared<hs::LibraryReport>();
    auto cancel = m_cancel;
    m_thread = QThread::create([o, report, cancel]() mutable {
        o.cancel = cancel.get();
        // An exception leaving a thread ends the process: a scan that fails says so instead.
        try {
            *report = hs::scanLibrary(o);
        } catch (const std::exception& e) {
            report->notes.push_back(std::string("the scan stopped: ") + e.what());
        } catch (...) {
            report->notes.push_back("the scan stopped on an unknown error");
        }
    });
    connect(m_thread, &QThread::finished, this, [this, report] {
        m_thread->deleteLater();
        m_thread = nullptr;
        onScanned(*report);
        if (m_again) {
            m_again = false;
            rescan();
        }
    });
    m_panel->setScanning(true);
    m_thread->start();
}

void LibraryDialog::stop() {
    if (m_thread) m_cancel->store(true);
    m_again = false;
}

void LibraryDialog::onScanned(const hs::LibraryReport& report) {
    m_entries = report.entries;
    QVector<LibraryRow> rows;
    for (const auto& e : m_entries) rows << rowOf(e);
    m_panel->setScanning(false);
    m_panel->setRows(rows, qsList(report.notes));
}

void LibraryDialog::onSourcesChanged(const LibrarySources& sources) {
    StudioSettings().setLibrarySources(sources);
    rescan();
}

std::vector<hs::LibraryEntry> LibraryDialog::entriesAt(const QStringList& paths) const {
    std::vector<hs::LibraryEntry> out;
    for (const auto& p : paths)
        for (const auto& e : m_entries)
            if (qs(e.path) == p) out.push_back(e);
    return out;
}

// What the picks are and whether they open: a pipeline folder on its own, or files the engine
// sorts into a model and its parts (library_file_set.h), the parts it lacks named.
void LibraryDialog::checkPicks(const QStringList& paths) {
    const auto picked = entriesAt(paths);
    if (picked.empty()) {
        m_panel->setPickState(false, tr("Select a model, or tick the files of a split set (the "
                                        "model, its VAE and text encoders)."));
        return;
    }
    const hs::LibraryEntry& first = picked.front();
    if (picked.size() == 1 && !first.error.empty()) {
        m_panel->setPickState(false,
                              tr("%1 cannot be read: %2").arg(qs(first.name), qs(first.error)));
        return;
    }
    if (picked.size() == 1 && first.kind == hs::EntryKind::Pipeline) {
        m_panel->setPickState(true, tr("Opens %1 (%2).").arg(qs(first.name), qs(first.className)));
        return;
    }
    for (const auto& e : picked)
        if (e.kind != hs::EntryKind::SingleFile) {
            m_panel->setPickState(false, tr("%1 is a %2, not a file of a set: open the pipeline "
                                            "folder it belongs to.")
                                             .arg(qs(e.name), qs(hs::entryKindName(e.kind))));
            return;
        }
    const hs::LibraryFileSet set = hs::assembleFileSet(picked);
    if (!set.error.empty()) {
        m_panel->setPickState(false, tr("These files do not make a model: %1").arg(qs(set.error)));
        return;
    }
    QStringList lines;
    if (!set.missing.empty())
        lines << tr("Missing, so Open waits: %1").arg(qsList(set.missing).join("; "));
    else
        lines << tr("Opens %1 as %2.")
                     .arg(qs(set.model), set.pipeline.empty() ? tr("a model") : qs(set.pipeline));
    if (!set.optional.empty()) lines << qsList(set.optional).join("; ");
    m_panel->setPickState(set.complete(), lines.join("\n"));
}

void LibraryDialog::open(const QStringList& paths) {
    const auto picked = entriesAt(paths);
    if (picked.empty()) return;
    if (picked.size() == 1 && picked.front().kind == hs::EntryKind::Pipeline) {
        m_studio->openModel(qs(picked.front().path));
        return;
    }
    const hs::LibraryFileSet set = hs::assembleFileSet(picked);
    if (!set.complete()) return;  // Open is disabled then; a double click says nothing more
    m_studio->openModel(qs(set.model), set.with);
}
