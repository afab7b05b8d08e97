// The model library in the studio, offscreen, over real files: a Hugging Face cache (a symlinked
// snapshot), a ComfyUI tree with broken files and an AUTOMATIC1111 tree, built by the library
// tests' writers; real window, real scan thread, real load of the entry opened.
// LibTorch (through the fixtures) before any Qt header: see torch_include.h.
// clang-format off
#include "torch_include.h"
#include "library/library_tree.h"
#include "library/library_scan.h"
// clang-format on

#include <gtest/gtest.h>

#include <QAction>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <filesystem>

#include "library_dialog.h"
#include "library_panel.h"
#include "main_window.h"
#include "model_panel.h"
#include "runtime/demo_location.h"
#include "studio.h"
#include "studio_test_fixture.h"

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

const LibraryRow* rowNamed(const LibraryPanel& p, const QString& name) {
    for (const auto& r : p.rows())
        if (r.name == name) return &r;
    return nullptr;
}

QString names(const LibraryPanel& p) {
    QStringList n;
    for (const auto& r : p.rows()) n << r.name;
    return n.join(", ");
}

bool waitScan(LibraryDialog& d) {
    return QTest::qWaitFor([&] { return !d.isScanning() && !d.panel()->isScanning(); }, 30000);
}

class ModelLibraryPanel : public StudioFixture {};

TEST_F(ModelLibraryPanel, ScansTheCacheAndAddedFoldersOpensAnEntryAndNamesAMissingPart) {
    const auto t = hs::test::writeLibraryTree(m_dir.filePath("tree").toStdString());
    // The studio finds the hub cache from $HF_HOME and keeps its header cache under
    // $XDG_CACHE_HOME: both in the test's folder, never the user's.
    setEnv("HF_HOME", qs(t.root + "/hf"));

    const auto window = openStudio();
    MainWindow& w = *window;
    ASSERT_TRUE(w.studio().model().has_value());

    // File > Model library: the first show scans the defaults (the hub cache alone here).
    auto* action = w.findChild<QAction*>("modelLibraryAction");
    ASSERT_NE(action, nullptr);
    EXPECT_EQ(action->shortcut(), QKeySequence("Ctrl+L"));
    action->trigger();
    auto* dialog = w.findChild<LibraryDialog*>();
    ASSERT_NE(dialog, nullptr);
    LibraryPanel& panel = *dialog->panel();
    // The scan runs on its own thread: the window is back at once, with Stop on, Rescan off.
    auto* stop = panel.findChild<QPushButton*>("libraryStop");
    auto* rescan = panel.findChild<QPushButton*>("libraryRescan");
    EXPECT_TRUE(dialog->isScanning());
    EXPECT_TRUE(stop->isEnabled());
    EXPECT_FALSE(rescan->isEnabled());
    ASSERT_TRUE(waitScan(*dialog));
    EXPECT_FALSE(stop->isEnabled());
    EXPECT_TRUE(rescan->isEnabled());
    ASSERT_EQ(panel.rows().size(), 1) << names(panel).toStdString();
    const LibraryRow* hub = rowNamed(panel, "black-forest-labs/FLUX.1-tiny");
    ASSERT_NE(hub, nullptr);
    EXPECT_EQ(hub->source, "hf-cache");
    EXPECT_EQ(hub->kind, "pipeline");
    EXPECT_EQ(hub->family, "Flux transformer");
    EXPECT_TRUE(QFileInfo::exists(m_dir.filePath("cache") + "/halfscope/library.json"));
    const QString hubName = hub->name;  // the rows are replaced by the next scan

    // The user adds a ComfyUI and an AUTOMATIC1111 folder: kept in the settings, scanned again.
    panel.setSourceChooser([&](QWidget*, const QString& kind) {
        return kind == "comfyui" ? qs(t.comfy) : kind == "a1111" ? qs(t.a1111) : QString();
    });
    panel.findChild<QPushButton*>("addComfyui")->click();
    ASSERT_TRUE(waitScan(*dialog));
    panel.findChild<QPushButton*>("addA1111")->click();
    ASSERT_TRUE(waitScan(*dialog));
    EXPECT_EQ(QSettings().value("library/comfyui").toStringList(), QStringList{qs(t.comfy)});
    EXPECT_EQ(QSettings().value("library/a1111").toStringList(), QStringList{qs(t.a1111)});
    const LibraryRow* dit = rowNamed(panel, "flux1-tiny.safetensors");
    ASSERT_NE(dit, nullptr) << names(panel).toStdString();
    EXPECT_EQ(dit->source, "comfyui");
    EXPECT_EQ(dit->family, "Flux transformer");
    EXPECT_EQ(dit->variant, "FLUX.1-dev style (guidance embedding)");
    const LibraryRow* sd = rowNamed(panel, "sd15-tiny.safetensors");
    ASSERT_NE(sd, nullptr);
    EXPECT_EQ(sd->source, "a1111");
    EXPECT_TRUE(sd->variant.contains("SD 1.x")) << sd->variant.toStdString();
    // Broken files are rows with their errors, in the table too.
    const LibraryRow* truncated = rowNamed(panel, "truncated.safetensors");
    ASSERT_NE(truncated, nullptr);
    EXPECT_TRUE(truncated->error.contains("exceeds the file size 100"))
        << truncated->error.toStdString();
    const LibraryRow* gone = rowNamed(panel, "gone.safetensors");
    ASSERT_NE(gone, nullptr);
    EXPECT_TRUE(gone->error.contains("dangling symlink")) << gone->error.toStdString();
    auto* filter = panel.findChild<QLineEdit*>("libraryFilter");
    filter->setText("TRUNCATED");
    QAbstractItemModel* shown = panel.table()->model();
    ASSERT_EQ(shown->rowCount(), 1);
    EXPECT_EQ(shown->index(0, LibraryPanel::Name).data().toString(), "truncated.safetensors");
    EXPECT_TRUE(
        shown->index(0, LibraryPanel::Error).data().toString().contains("exceeds the file size"));
    EXPECT_TRUE(panel.findChild<QLabel*>("libraryStatus")->text().contains("cannot be read"));
    filter->clear();
    EXPECT_EQ(shown->rowCount(), panel.rows().size());
    // Sorted by size (bytes, not the text "12.3 MB"), largest first.
    const LibraryRow* largest = &panel.rows().front();
    for (const auto& r : panel.rows())
        if (r.bytes > largest->bytes) largest = &r;
    panel.table()->sortByColumn(LibraryPanel::Size, Qt::DescendingOrder);
    EXPECT_EQ(shown->index(0, LibraryPanel::Name).data().toString(), largest->name);

    // A split FLUX set without its VAE: the engine names the missing part, Open waits.
    auto* open = panel.findChild<QPushButton*>("libraryOpen");
    const QString models = qs(t.comfy) + "/models/";
    ASSERT_TRUE(panel.setTicked(models + "diffusion_models/flux1-tiny.safetensors", true));
    ASSERT_TRUE(panel.setTicked(models + "clip/clip_l.safetensors", true));
    ASSERT_TRUE(panel.setTicked(models + "text_encoders/t5xxl_tiny.safetensors", true));
    EXPECT_TRUE(panel.pickText().contains("no VAE: pick an ae.safetensors"))
        << panel.pickText().toStdString();
    EXPECT_FALSE(open->isEnabled());
    ASSERT_TRUE(panel.setTicked(models + "vae/ae.safetensors", true));
    EXPECT_TRUE(open->isEnabled()) << panel.pickText().toStdString();
    EXPECT_TRUE(panel.pickText().contains("FluxPipeline")) << panel.pickText().toStdString();
    // A broken file cannot be ticked into a set.
    EXPECT_FALSE(panel.setTicked(models + "vae/truncated.safetensors", true));
    for (const auto& p : panel.picks()) ASSERT_TRUE(panel.setTicked(p, false));

    // Open the hub pipeline: the studio loads it as File > Open does, the model panel shows it.
    const QModelIndexList hits = shown->match(shown->index(0, LibraryPanel::Name), Qt::DisplayRole,
                                              hubName, 1, Qt::MatchExactly);
    ASSERT_EQ(hits.size(), 1);
    panel.table()->selectRow(hits[0].row());
    ASSERT_TRUE(open->isEnabled()) << panel.pickText().toStdString();
    open->click();
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return w.studio().model() && w.studio().model()->dir == qs(t.snapshot); }, 120000))
        << w.views().model->errorText().toStdString();
    EXPECT_EQ(w.views().model->model().folder, qs(t.snapshot));
    EXPECT_FALSE(w.views().model->model().components.empty());

    // A second window reads the added folders back from the settings.
    {
        LibraryDialog again(&w.studio());
        EXPECT_EQ(again.panel()->sources().comfyui, QStringList{qs(t.comfy)});
        EXPECT_EQ(again.panel()->sources().a1111, QStringList{qs(t.a1111)});
    }

    // Removing the ComfyUI folder forgets it and its models; Stop ends a scan (here one that
    // may already be done: either way the window comes back with a list).
    auto* sources = panel.findChild<QListWidget*>("librarySources");
    const auto found = sources->findItems("ComfyUI: " + qs(t.comfy), Qt::MatchExactly);
    ASSERT_EQ(found.size(), 1);
    sources->setCurrentItem(found[0]);
    panel.findChild<QPushButton*>("removeSource")->click();
    EXPECT_TRUE(stop->isEnabled());
    stop->click();
    ASSERT_TRUE(waitScan(*dialog));
    EXPECT_TRUE(QSettings().value("library/comfyui").toStringList().isEmpty());
    rescan->click();
    ASSERT_TRUE(waitScan(*dialog));
    EXPECT_EQ(rowNamed(panel, "flux1-tiny.safetensors"), nullptr) << names(panel).toStdString();
    EXPECT_NE(rowNamed(panel, "sd15-tiny.safetensors"), nullptr) << names(panel).toStdString();
    w.close();
}

// Stop: a scan whose flag is set ends at the next folder entry and says the list is incomplete
// (the flag is what the panel's Stop sets, read by the scan thread).
TEST_F(ModelLibraryPanel, AStoppedScanEndsAndSaysItIsIncomplete) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const auto t = hs::test::writeLibraryTree(dir.filePath("tree").toStdString());
    hs::LibraryOptions o;
    o.defaultHfCache = false;
    o.comfyui = {t.comfy};
    const auto all = hs::scanLibrary(o);
    EXPECT_GT(all.entries.size(), 5u);
    const std::atomic<bool> stop{true};
    o.cancel = &stop;
    const auto stopped = hs::scanLibrary(o);
    EXPECT_LT(stopped.entries.size(), all.entries.size());
    EXPECT_NE(std::find(stopped.notes.begin(), stopped.notes.end(),
                        "scan stopped before the end; the list is incomplete"),
              stopped.notes.end());
}

// Closing the library while it scans a large tree returns at once (the scan stops at its next
// folder entry or file; one stuck in a system call is let go after 1 s), and the studio opens a
// new library afterwards.
TEST_F(ModelLibraryPanel, ClosingDuringAScanOfALargeTreeReturnsWithinASecond) {
    const auto t = hs::test::writeLibraryTree(m_dir.filePath("tree").toStdString());
    const std::string hub = m_dir.filePath("big/hub").toStdString();
    for (int i = 0; i < 1500; ++i) {
        const std::string snap =
            hub + "/models--someone--vae" + std::to_string(i) + "/snapshots/abc";
        std::filesystem::create_directories(snap);  // hard links: 1500 files, one file's bytes
        std::filesystem::create_hard_link(t.flux.ae, snap + "/ae.safetensors");
    }
    setEnv("HF_HOME", m_dir.filePath("big"));
    const auto window = openStudio();
    MainWindow& w = *window;
    auto* action = w.findChild<QAction*>("modelLibraryAction");
    ASSERT_NE(action, nullptr);
    action->trigger();
    auto* dialog = w.findChild<LibraryDialog*>();
    ASSERT_NE(dialog, nullptr);
    QTest::qWait(200);
    ASSERT_TRUE(dialog->isScanning()) << "the tree was scanned in 200 ms: make it larger";
    QElapsedTimer closing;
    closing.start();
    delete dialog;
    const qint64 ms = closing.elapsed();
    std::printf("  closed during a scan of 1500 repositories in %lld ms\n", (long long)ms);
    EXPECT_LT(ms, 1000);
    action->trigger();
    auto* again = w.findChild<LibraryDialog*>();
    ASSERT_NE(again, nullptr);
    again->stop();
    ASSERT_TRUE(waitScan(*again));
}

}  // namespace
