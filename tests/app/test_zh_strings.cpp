// The studio complete in Chinese: with the zh_CN translations installed as main() installs them
// (Qt's qtbase_zh_CN for the standard buttons and file dialogs, the studio's halfscope_zh_CN),
// every text the studio shows and every section of the HTML report it exports must be Chinese.
// The window is walked after a failing fp16 run of the demo, a bf16 vs fp16 comparison and a
// fix search (Run, Compare, Log, fix panel), then the settings, the model library (a scanned
// tree), the welcome, a message box's standard buttons and Qt's file dialog. A text fails when
// it still holds an English word: each failure is listed with the widget that shows it.
//
// Latin that is not English passes: names of formats, units and file types (kLatinWords),
// technical tokens (a word holding a digit, '.', '_', '/', '=', ':' or '+': layer paths, plans,
// file names, numbers, shortcuts), capitalised names in a Chinese text (products, models,
// libraries: "像 Polygraphy 一样"), and what the user, the model or the machine named (the prompt,
// the model and its components, the CPU and GPUs, the library's model families).
// LibTorch (through the library tree fixture) before any Qt header: see torch_include.h.
// clang-format off
#include "torch_include.h"
#include "library/library_tree.h"
// clang-format on

#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSet>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTextDocumentFragment>
#include <QTextEdit>
#include <QTranslator>

#include "diagnosis/device_info.h"
#include "fix_panel.h"
#include "fix_settings.h"
#include "library_dialog.h"
#include "library_panel.h"
#include "precision_panel.h"
#include "qcustomplot.h"
#include "runtime/devices.h"
#include "settings_dialog.h"
#include "studio_test_fixture.h"
#include "studio_text.h"
#include "ui_language.h"
#include "welcome_dialog.h"

namespace {

// Latin words a Chinese reader is shown as they are: the product, number formats and special
// values, units, file types, hardware and libraries, statistics' symbols, acronyms the
// translations keep (CFG, RGB), the language menu's "English" (a language's own name) and the
// scheduler's configuration key "shift".
const QSet<QString> kLatinWords = {
    "Halfscope",   "fp16",      "bf16",    "fp32",    "NaN",   "Inf", "nan",  "inf",      "VAE",
    "CPU",         "GPU",       "CUDA",    "PNG",     "HTML",  "CSV", "JSON", "LibTorch", "oneDNN",
    "PSNR",        "dB",        "MB",      "GB",      "ms",    "max", "min",  "std",      "sigma",
    "safetensors", "diffusers", "ComfyUI", "English", "shift", "CFG", "RGB"};

// A shown text and the widget (or report part) that shows it.
struct Shown {
    QString where;
    QString text;
};

// Plain text of a label's rich text; `&` accelerators removed.
QString plain(const QString& text) {
    QString t =
        Qt::mightBeRichText(text) ? QTextDocumentFragment::fromHtml(text).toPlainText() : text;
    return t.remove(QRegularExpression("&(?=\\S)"));
}

// The English words of `text`: runs of two or more Latin letters, outside technical tokens and
// the allowed words.
QStringList englishWords(const QString& text, const QSet<QString>& allowed) {
    QStringList words;
    static const QRegularExpression space("[\\s\\x{3000}]+");
    static const QRegularExpression technical("[0-9._/=:+\\\\]");
    static const QRegularExpression word("[A-Za-z]{2,}");
    static const QRegularExpression cjk("[\\x{4e00}-\\x{9fff}]");
    const bool chinese = text.contains(cjk);
    for (QString token : text.split(space, Qt::SkipEmptyParts)) {
        // Sentence punctuation around a token is not part of it ("(block" -> "block").
        token.remove(QRegularExpression("^[\\p{P}\\p{S}]+|[\\p{P}\\p{S}]+$"));
        if (token.contains(technical)) continue;
        auto it = word.globalMatch(token);
        while (it.hasNext()) {
            const QString w = it.next().captured();
            // A name inside a Chinese sentence ("Polygraphy"); an acronym must be listed.
            if (chinese && w.at(0).isUpper() && w.at(1).isLower()) continue;
            if (!allowed.contains(w.toLower()) && !kLatinWords.contains(w)) words << w;
        }
    }
    return words;
}

// Each line on its own: a log or a report lists many.
void add(QList<Shown>& out, const QString& where, const QString& text) {
    static const QRegularExpression lineBreak("[\\n\\x{2028}\\x{2029}]");
    for (const QString& line : plain(text).split(lineBreak))
        if (!line.trimmed().isEmpty()) out.append({where, line});
}

// The lower-case words of `text`, for the names a test allows.
QSet<QString> wordsOf(const QString& text) {
    QSet<QString> s;
    static const QRegularExpression nonLetter("[^a-z]+");
    for (const QString& w : text.toLower().split(nonLetter, Qt::SkipEmptyParts)) s.insert(w);
    return s;
}

// An item view's headers and the display text and tooltips of the first rows it shows (under
// its root: a file dialog's folder, not the file system's top).
void collectItems(QList<Shown>& out, const QString& where, const QAbstractItemView* v) {
    const QAbstractItemModel* m = v->model();
    if (!m) return;
    const QModelIndex root = v->rootIndex();
    for (int c = 0; c < m->columnCount(root); ++c) {
        add(out, where + " header", m->headerData(c, Qt::Horizontal).toString());
        add(out, where + " header tip",
            m->headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString());
    }
    for (int r = 0; r < std::min(m->rowCount(root), 100); ++r)
        for (int c = 0; c < m->columnCount(root); ++c) {
            const QModelIndex i = m->index(r, c, root);
            add(out, where + " cell", m->data(i).toString());
            add(out, where + " cell tip", m->data(i, Qt::ToolTipRole).toString());
        }
}

void collectPlot(QList<Shown>& out, const QString& where, QCustomPlot* p) {
    for (QCPAxisRect* r : p->axisRects())
        for (QCPAxis* a : r->axes()) add(out, where + " axis", a->label());
    for (int i = 0; i < p->plottableCount(); ++i)
        if (p->legend && p->legend->visible() && p->legend->hasItemWithPlottable(p->plottable(i)))
            add(out, where + " legend", p->plottable(i)->name());
    for (int i = 0; i < p->itemCount(); ++i)
        if (auto* t = qobject_cast<QCPItemText*>(p->item(i)); t && t->visible())
            add(out, where + " label", t->text());
}

void collectActions(QList<Shown>& out, const QString& where, const QList<QAction*>& actions) {
    for (QAction* a : actions) {
        if (a->isSeparator() || !a->isVisible()) continue;
        add(out, where, a->text());
        if (a->toolTip() != plain(a->text())) add(out, where + " tip", a->toolTip());
        if (a->menu()) collectActions(out, where + " > " + plain(a->text()), a->menu()->actions());
    }
}

// Every text `root` and its children show: window titles, labels, buttons, tabs, group boxes,
// combo items, placeholders, read-only text, item views, plots and tooltips. A widget hidden
// itself is skipped (one on a tab not in front still counts).
QList<Shown> shownTexts(QWidget* root) {
    QList<Shown> out;
    add(out, "window title", root->windowTitle());
    QList<QWidget*> widgets = root->findChildren<QWidget*>();
    widgets.prepend(root);
    for (QWidget* w : widgets) {
        if (w->isHidden() || qobject_cast<QMenu*>(w)) continue;
        const QString where =
            QString::fromLatin1(w->metaObject()->className()) + " " + w->objectName();
        add(out, where + " tip", w->toolTip());
        if (auto* d = qobject_cast<QDockWidget*>(w)) add(out, where, d->windowTitle());
        if (auto* l = qobject_cast<QLabel*>(w)) add(out, where, l->text());
        if (auto* b = qobject_cast<QAbstractButton*>(w)) add(out, where, b->text());
        if (auto* g = qobject_cast<QGroupBox*>(w)) add(out, where, g->title());
        if (auto* e = qobject_cast<QLineEdit*>(w)) add(out, where, e->placeholderText());
        if (auto* c = qobject_cast<QComboBox*>(w))
            for (int i = 0; i < c->count(); ++i) add(out, where + " item", c->itemText(i));
        if (auto* t = qobject_cast<QTabBar*>(w))
            for (int i = 0; i < t->count(); ++i) {
                add(out, where + " tab", t->tabText(i));
                add(out, where + " tab tip", t->tabToolTip(i));
            }
        if (auto* e = qobject_cast<QPlainTextEdit*>(w)) {
            add(out, where, e->placeholderText());
            if (e->isReadOnly()) add(out, where, e->toPlainText());
        }
        if (auto* e = qobject_cast<QTextEdit*>(w)) {
            add(out, where, e->placeholderText());
            if (e->isReadOnly()) add(out, where, e->toPlainText());
        }
        // A header shows its view's model: read once, through the view.
        if (auto* v = qobject_cast<QAbstractItemView*>(w); v && !qobject_cast<QHeaderView*>(w))
            collectItems(out, where, v);
        if (auto* p = qobject_cast<QCustomPlot*>(w)) collectPlot(out, where, p);
        collectActions(out, where + " action", w->actions());
    }
    if (auto* m = qobject_cast<QMainWindow*>(root)) {
        collectActions(out, "menu", m->menuBar()->actions());
        add(out, "status bar", m->statusBar()->currentMessage());
    }
    return out;
}

// "where: text [words]" for each shown text holding English.
QStringList untranslated(const QList<Shown>& texts, const QSet<QString>& allowed) {
    QStringList bad;
    for (const Shown& s : texts) {
        const QStringList words = englishWords(s.text, allowed);
        if (!words.isEmpty())
            bad << s.where + ": \"" + s.text.left(160) + "\" [" + words.join(' ') + "]";
    }
    bad.removeDuplicates();
    return bad;
}

// The text a reader of the HTML report sees: the title, the body's text, tooltips and alt texts
// (SVG <title>s included), entities decoded; styles and tags dropped.
QString reportText(QString html) {
    html.remove(
        QRegularExpression("<style>.*</style>", QRegularExpression::DotMatchesEverythingOption));
    QStringList attributes;
    auto it = QRegularExpression("(?:title|alt|aria-label)=\"([^\"]*)\"").globalMatch(html);
    while (it.hasNext()) attributes << it.next().captured(1);
    html.replace(QRegularExpression("<[^>]*>"), "\n");
    QString text = html + "\n" + attributes.join('\n');
    return QTextDocumentFragment::fromHtml("<pre>" + text.toHtmlEscaped().replace("&amp;", "&") +
                                           "</pre>")
        .toPlainText();
}

QString readText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

class ZhStrings : public StudioFixture {
protected:
    void SetUp() override {
        StudioFixture::SetUp();
        m_translators = ui_language::installTranslators("zh_CN", HALFSCOPE_QM_DIR);
        QLocale::setDefault(QLocale(QLocale::Chinese, QLocale::China));
        ASSERT_EQ(m_translators.size(), 2)
            << "qtbase_zh_CN (package qt6-translations-l10n) or halfscope_zh_CN is missing";
    }
    void TearDown() override {
        for (QTranslator* t : m_translators) {
            QCoreApplication::removeTranslator(t);
            delete t;
        }
        QLocale::setDefault(m_locale);
        StudioFixture::TearDown();
    }

    // What the user, the model and the machine named: the prompt, the model's folder and its
    // components, the CPU and the GPUs (this machine's and the advice's known ones).
    static QSet<QString> namedBy(MainWindow& w) {
        QSet<QString> s = wordsOf(qs(panelRun(w).prompt));
        const LoadedModel& m = *w.studio().model();
        s += wordsOf(QFileInfo(m.dir).fileName()) + wordsOf(m.pipelineClass);
        for (const auto& c : m.components) s += wordsOf(qs(c.name)) + wordsOf(qs(c.className));
        s += wordsOf(qs(hs::cpuInfo().model));
        for (const auto& g : hs::cudaDevices()) s += wordsOf(qs(g.name));
        for (const auto& g : hs::knownGpus()) s += wordsOf(qs(g.name) + " " + qs(g.label));
        return s;
    }

    QList<QTranslator*> m_translators;
    QLocale m_locale;
};

}  // namespace

TEST_F(ZhStrings, EveryViewAndEveryReportSectionIsChinese) {
    const auto tree = hs::test::writeLibraryTree(m_dir.filePath("tree").toStdString());
    setEnv("HF_HOME", qs(tree.root + "/hf"));
    const auto window = openDemo(4);
    MainWindow& w = *window;
    QSet<QString> named = namedBy(w);
    QStringList bad;
    auto check = [&](const QString& view, QWidget* root) {
        for (const QString& b : untranslated(shownTexts(root), named)) bad << view + " | " + b;
    };

    // Run tab, log and history after a failing fp16 run; Compare after bf16 vs fp16; the fix
    // panel after a search with one remedy.
    w.views().precision->applyPreset(PrecisionPanel::Preset::TransformerFp16);
    w.studio().generate();
    ASSERT_TRUE(waitIdle(w));
    // The model's layer paths, as its probe points name them ("decoder.up_blocks.2").
    for (const auto& p : w.studio().lastRun()->probes) named += wordsOf(qs(p.name));
    check("run", &w);
    w.studio().compareBf16VsFp16();
    ASSERT_TRUE(waitIdle(w));
    FixSettings fix;
    fix.trialSteps = 3;
    fix.remedies = {hs::RemedyKind::Clamp};
    w.studio().findMinimalFix(fix);
    ASSERT_TRUE(QTest::qWaitFor([&] { return !w.studio().isBusy(); }, 300000));
    check("compare and fix", &w);

    // The report of the comparison and the search: every section.
    QString error;
    const QString html = m_dir.filePath("report.html");
    ASSERT_TRUE(w.studio().exportReport(html, &error)) << error.toStdString();
    const QString report = readText(html);
    // The machine's operating system and device id ("cpu"), as the report's environment names them.
    const QJsonObject env =
        QJsonDocument::fromJson(readText(m_dir.filePath("report.json")).toUtf8())
            .object()["environment"]
            .toObject();
    named += wordsOf(env["os"].toString()) + wordsOf(env["device"].toString());
    for (const char* id :
         {"summary", "environment", "components", "plans", "steps", "previews", "heatmap",
          "first-failure", "headroom", "divergence", "bisection", "remedies", "advice"})
        EXPECT_TRUE(report.contains(QString("<section id=\"%1\"").arg(id))) << id;
    for (const QString& line : reportText(report).split('\n'))
        for (const QString& b : untranslated({{"line", line}}, named)) bad << "report | " + b;

    // The dialogs: settings, the model library after its scan, the welcome.
    SettingsDialog settings(nullptr, &w);
    settings.show();
    check("settings", &settings);
    w.findChild<QAction*>("modelLibraryAction")->trigger();
    auto* library = w.findChild<LibraryDialog*>();
    ASSERT_NE(library, nullptr);
    ASSERT_TRUE(QTest::qWaitFor(
        [&] { return !library->isScanning() && !library->panel()->isScanning(); }, 30000));
    // The families' names, as their makers name the models ("Flux transformer").
    for (const LibraryRow& row : library->panel()->rows()) named += wordsOf(row.family);
    check("library", library);
    check("welcome", w.showWelcome());

    // Qt's own: a message box's standard buttons and the file dialog (Qt's, not the desktop's).
    QMessageBox box(QMessageBox::Question, "Halfscope", "", QMessageBox::NoButton, &w);
    box.setStandardButtons(QMessageBox::Ok | QMessageBox::Cancel | QMessageBox::Close |
                           QMessageBox::Yes | QMessageBox::No | QMessageBox::Save |
                           QMessageBox::Discard | QMessageBox::Apply);
    box.show();
    check("message box", &box);
    ASSERT_TRUE(QDir().mkpath(m_dir.filePath("zh_files")));
    QFileDialog files(&w, "", m_dir.filePath("zh_files"));
    files.setOption(QFileDialog::DontUseNativeDialog);
    files.setFileMode(QFileDialog::ExistingFiles);
    files.show();
    named += wordsOf(QDir::home().dirName());  // the sidebar's home folder
    check("file dialog", &files);

    EXPECT_TRUE(bad.isEmpty()) << bad.size() << " untranslated texts:\n"
                               << bad.join('\n').toStdString();
}
