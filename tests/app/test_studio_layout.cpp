// The studio's layout at the screen sizes people have: 1366x768 and 1920x1080 (and 1500x950, the
// window's first size), at 1x and (a second ctest entry, QT_SCALE_FACTOR=2) at 2x, on offscreen
// screens of those sizes (layout_screens*.json). With a generation and a bf16-vs-fp16 comparison
// on screen, every tab, bottom dock and the two dialogs are checked: no text cut or elided
// (labels, buttons, tabs, group titles, combo boxes, image titles, plot axis labels and legend
// items), no widgets of one layout overlapping, no control out of sight.
// Then the window's first size on each screen, a failed run's banner in sight on the laptop
// screen, and the wheel over the Setup panel scrolling it rather than changing Steps.
// HALFSCOPE_SHOTS=<folder> also writes a PNG of each view at each size.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QAbstractButton>
#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStyleOptionButton>
#include <QStyleOptionComboBox>
#include <QStyleOptionGroupBox>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>
#include <QToolButton>
#include <QWheelEvent>
#include <QWindow>
#include <functional>

#include "compare_view.h"
#include "diagnosis/first_failure.h"
#include "failure_banner.h"
#include "image_view.h"
#include "layer_heatmap.h"
#include "library_dialog.h"
#include "main_window.h"
#include "precision_panel.h"
#include "preview_strip.h"
#include "prompt_panel.h"
#include "runtime/demo_location.h"
#include "settings_dialog.h"
#include "step_plot.h"
#include "studio.h"
#include "studio_test_fixture.h"
#include "view_heatmap_grid.h"

namespace {

// Text as drawn: mnemonic '&' removed ("&&" is a literal '&').
QString shown(QString text) {
    text.replace("&&", QStringLiteral("\x01"));
    text.remove('&');
    text.replace(QStringLiteral("\x01"), "&");
    return text;
}

int lineWidth(const QFontMetrics& fm, const QString& text) {
    int w = 0;
    for (const QString& line : text.split('\n')) w = std::max(w, fm.horizontalAdvance(line));
    return w;
}

// QTabBar::tabSizeHint() is protected: reached through a member pointer taken in a subclass.
struct TabBarAccess : QTabBar {
    static QSize hint(const QTabBar* bar, int i) {
        QSize (QTabBar::*f)(int) const = &TabBarAccess::tabSizeHint;
        return (bar->*f)(i);
    }
};

QString describe(const QWidget* w) {
    return QStringLiteral("%1 '%2'").arg(w->metaObject()->className(), w->objectName());
}

// The text a label needs, in pixels across (rich text laid out as QLabel lays it out).
int labelTextWidth(const QLabel* l) {
    const bool rich = l->textFormat() == Qt::RichText ||
                      (l->textFormat() == Qt::AutoText && Qt::mightBeRichText(l->text()));
    if (!rich) return lineWidth(l->fontMetrics(), l->text());
    QTextDocument doc;
    doc.setDefaultFont(l->font());
    doc.setDocumentMargin(0);
    doc.setHtml(l->text());
    return int(std::ceil(doc.idealWidth()));
}

// Whether `w` shows on its window at all: visible, and not clipped away by every ancestor
// (a scroll area's content counts as reachable: the user scrolls to it).
QRect visiblePart(const QWidget* w) {
    QRect r = w->rect();
    const QWidget* child = w;
    for (const QWidget* p = w->parentWidget(); p; child = p, p = p->parentWidget()) {
        r.translate(child->pos());
        const auto* area = qobject_cast<const QAbstractScrollArea*>(p->parentWidget());
        if (area && area->viewport() == p) {
            // Scrolled into view: as much of it as the viewport holds.
            if (!r.isEmpty()) r = QRect(QPoint(0, 0), r.size().boundedTo(p->size()));
        } else {
            r &= p->rect();
        }
        if (r.isEmpty() || p->isWindow()) break;
    }
    return r;
}

// A dock in a tab group shows only when its tab is current (the others keep isVisible()).
bool dockShown(const QWidget* w) {
    const QDockWidget* dock = nullptr;
    for (const QWidget* p = w; p && !dock; p = p->parentWidget())
        dock = qobject_cast<const QDockWidget*>(p);
    if (!dock || !dock->parentWidget()) return true;
    for (QTabBar* bar : dock->parentWidget()->findChildren<QTabBar*>(Qt::FindDirectChildrenOnly))
        for (int i = 0; i < bar->count(); ++i)
            if (bar->tabData(i).value<quintptr>() == quintptr(dock))
                return bar->isVisible() && bar->currentIndex() == i;
    return true;
}

// Texts that do not fit the room their widget gives them.
QStringList cutTexts(QWidget* root) {
    QStringList out;
    auto report = [&](const QWidget* w, const QString& text, int need, int have) {
        out << QStringLiteral("%1 \"%2\": needs %3 px, has %4 px")
                   .arg(describe(w), text.left(80))
                   .arg(need)
                   .arg(have);
    };
    QList<QWidget*> all = root->findChildren<QWidget*>();
    all.prepend(root);
    for (QWidget* w : all) {
        if (!w->isVisible() || visiblePart(w).isEmpty() || !dockShown(w)) continue;
        QStyle* style = w->style();
        if (auto* l = qobject_cast<QLabel*>(w)) {
            if (l->text().isEmpty()) continue;
            const QRect c =
                l->contentsRect().adjusted(l->margin(), l->margin(), -l->margin(), -l->margin());
            if (l->text().contains(QChar(0x2026)))
                out << QStringLiteral("%1 \"%2\": elided").arg(describe(l), l->text());
            if (l->wordWrap()) {
                // A wrapped label must get the height of all its lines.
                const int need = l->heightForWidth(l->contentsRect().width());
                if (need > l->contentsRect().height() + 1)
                    out << QStringLiteral("%1 \"%2\": wraps to %3 px high, has %4 px")
                               .arg(describe(l), l->text().left(80))
                               .arg(need)
                               .arg(l->contentsRect().height());
                continue;
            }
            const int need = labelTextWidth(l);
            if (need > c.width()) report(l, l->text(), need, c.width());
        } else if (auto* b = qobject_cast<QAbstractButton*>(w)) {
            const QString text = shown(b->text());
            if (text.isEmpty()) continue;
            const int icon = b->icon().isNull() ? 0 : b->iconSize().width() + 4;
            const int need = lineWidth(b->fontMetrics(), text) + icon;
            int have = 0;
            if (auto* push = qobject_cast<QPushButton*>(b)) {
                QStyleOptionButton opt;
                opt.initFrom(push);
                opt.text = push->text();
                opt.features = push->isDefault() ? QStyleOptionButton::DefaultButton
                                                 : QStyleOptionButton::None;
                const int margin = style->pixelMetric(QStyle::PM_ButtonMargin, &opt, push);
                have = style->subElementRect(QStyle::SE_PushButtonContents, &opt, push).width() -
                       margin;
            } else if (qobject_cast<QCheckBox*>(b) || qobject_cast<QRadioButton*>(b)) {
                QStyleOptionButton opt;
                opt.initFrom(b);
                opt.text = b->text();
                const auto se = qobject_cast<QCheckBox*>(b) ? QStyle::SE_CheckBoxContents
                                                            : QStyle::SE_RadioButtonContents;
                have = style->subElementRect(se, &opt, b).width();
            } else {
                // Tool buttons (text only here): their size hint is the text plus the frame.
                have = b->width() - (b->sizeHint().width() - need);
            }
            if (need > have) report(b, text, need, have);
        } else if (auto* bar = qobject_cast<QTabBar*>(w)) {
            for (int i = 0; i < bar->count(); ++i) {
                if (!bar->isTabVisible(i)) continue;
                const QRect tab = bar->tabRect(i);
                const int need = TabBarAccess::hint(bar, i).width();
                if (tab.width() < need || !bar->rect().contains(tab))
                    report(bar, shown(bar->tabText(i)), need, (tab & bar->rect()).width());
            }
        } else if (auto* g = qobject_cast<QGroupBox*>(w)) {
            if (g->title().isEmpty()) continue;
            QStyleOptionGroupBox opt;
            opt.initFrom(g);
            opt.text = g->title();
            opt.subControls = QStyle::SC_GroupBoxLabel;
            if (g->isCheckable()) opt.subControls |= QStyle::SC_GroupBoxCheckBox;
            const QRect label =
                style->subControlRect(QStyle::CC_GroupBox, &opt, QStyle::SC_GroupBoxLabel, g);
            const int need = g->fontMetrics().horizontalAdvance(shown(g->title()));
            const int have = (label & g->rect()).width();
            if (need > have) report(g, g->title(), need, have);
        } else if (auto* combo = qobject_cast<QComboBox*>(w)) {
            if (combo->currentText().isEmpty()) continue;
            QStyleOptionComboBox opt;
            opt.initFrom(combo);
            opt.editable = combo->isEditable();
            opt.currentText = combo->currentText();
            const QRect field = style->subControlRect(QStyle::CC_ComboBox, &opt,
                                                      QStyle::SC_ComboBoxEditField, combo);
            const int need = combo->fontMetrics().horizontalAdvance(combo->currentText());
            if (need > field.width()) report(combo, combo->currentText(), need, field.width());
        } else if (auto* image = qobject_cast<ImageView*>(w)) {
            for (const QString& t : image->elidedTexts())
                out << QStringLiteral("%1: painted text cut: \"%2\"").arg(describe(image), t);
        }
    }
    return out;
}

// QCustomPlot: axis labels within their axis rect, legend items whole and inside the plot.
QStringList cutPlotTexts(QWidget* root) {
    QStringList out;
    for (QCustomPlot* plot : root->findChildren<QCustomPlot*>()) {
        if (!plot->isVisible() || visiblePart(plot).isEmpty()) continue;
        plot->replot(QCustomPlot::rpImmediateRefresh);  // item rects follow the current size
        const QString name = describe(plot) + " in " + describe(plot->parentWidget());
        for (QCPAxisRect* ar : plot->axisRects()) {
            for (QCPAxis* axis : ar->axes()) {
                if (!axis->visible() || axis->label().isEmpty()) continue;
                const int need = QFontMetrics(axis->labelFont()).horizontalAdvance(axis->label());
                const int have = axis->orientation() == Qt::Horizontal ? ar->width() : ar->height();
                if (need > have)
                    out << QStringLiteral("%1 axis label \"%2\": needs %3 px, axis has %4 px")
                               .arg(name, axis->label())
                               .arg(need)
                               .arg(have);
            }
        }
        QCPLegend* legend = plot->legend;
        if (!legend || !legend->visible()) continue;
        const QRect bounds = plot->rect();
        for (int i = 0; i < legend->itemCount(); ++i) {
            QCPAbstractLegendItem* item = legend->item(i);
            if (!item) continue;  // an empty cell of a wrapped legend
            const QRect r = item->outerRect();
            const QSize need = item->minimumOuterSizeHint();
            auto* pl = qobject_cast<QCPPlottableLegendItem*>(item);
            const QString text = pl ? pl->plottable()->name() : QStringLiteral("item %1").arg(i);
            if (!bounds.contains(r))
                out << QStringLiteral(
                           "%1 legend item \"%2\" at (%3,%4 %5x%6) outside the plot "
                           "(%7x%8)")
                           .arg(name, text)
                           .arg(r.x())
                           .arg(r.y())
                           .arg(r.width())
                           .arg(r.height())
                           .arg(bounds.width())
                           .arg(bounds.height());
            else if (r.width() < need.width() || r.height() < need.height())
                out << QStringLiteral("%1 legend item \"%2\": needs %3x%4 px, has %5x%6 px")
                           .arg(name, text)
                           .arg(need.width())
                           .arg(need.height())
                           .arg(r.width())
                           .arg(r.height());
        }
    }
    return out;
}

// Controls that are shown but cannot be seen or used: outside every visible area, or squeezed
// below the height their text needs.
QStringList hiddenControls(QWidget* root) {
    QStringList out;
    for (QWidget* w : root->findChildren<QWidget*>()) {
        // A widget smaller than its layout's minimum overlaps its own children.
        if (w->isVisible() && dockShown(w) && w->layout() && !w->isWindow()) {
            const QSize min = w->layout()->totalMinimumSize();
            if (w->width() < min.width() || w->height() < min.height())
                out << QStringLiteral("%1 (in %2): %3x%4, its layout needs %5x%6")
                           .arg(describe(w), describe(w->parentWidget()))
                           .arg(w->width())
                           .arg(w->height())
                           .arg(min.width())
                           .arg(min.height());
        }
        if (w->isVisible() && dockShown(w) && w->layout()) {
            // Widgets of one layout that overlap: the layout got less than it needs.
            QList<QWidget*> items;
            std::function<void(QLayout*)> collect = [&](QLayout* l) {
                for (int i = 0; i < l->count(); ++i) {
                    QLayoutItem* it = l->itemAt(i);
                    if (it->widget() && it->widget()->isVisible()) items << it->widget();
                    if (it->layout()) collect(it->layout());
                }
            };
            collect(w->layout());
            for (int i = 0; i < items.size(); ++i)
                for (int j = i + 1; j < items.size(); ++j)
                    if (items[i]->geometry().intersects(items[j]->geometry()))
                        out << QStringLiteral("%1 and %2 overlap in %3")
                                   .arg(describe(items[i]), describe(items[j]), describe(w));
        }
        const bool control = qobject_cast<QAbstractButton*>(w) || qobject_cast<QComboBox*>(w) ||
                             qobject_cast<QLineEdit*>(w) || qobject_cast<QAbstractSpinBox*>(w);
        if (!control || !w->isVisible() || !dockShown(w)) continue;
        if (qobject_cast<QLineEdit*>(w) && qobject_cast<QAbstractSpinBox*>(w->parentWidget()))
            continue;  // a spin box's own editor
        if (w->objectName().startsWith("qt_dockwidget_"))
            continue;  // a dock's float and close buttons (the user docks and undocks by title)
        if (qobject_cast<QAbstractScrollArea*>(w->parentWidget()) ||
            qobject_cast<QTabBar*>(w->parentWidget()))
            continue;  // scroll bars' and tab bars' own buttons
        const QRect part = visiblePart(w);
        const int needH = std::min(w->minimumSizeHint().height(), w->fontMetrics().height());
        if (part.isEmpty() || part.height() < needH || part.width() < 8)
            out << QStringLiteral("%1 \"%2\": %3x%4 of it visible, its text needs %5 px high")
                       .arg(describe(w), qobject_cast<QAbstractButton*>(w)
                                             ? shown(qobject_cast<QAbstractButton*>(w)->text())
                                             : QString())
                       .arg(part.width())
                       .arg(part.height())
                       .arg(needH);
    }
    return out;
}

// The part of `w` seen in its window as things stand, in `w`'s coordinates: its rect clipped by
// every ancestor, scroll areas' viewports included (unlike visiblePart(), no credit for what a
// scroll would show).
QRect seenPart(const QWidget* w) {
    QRect r = w->rect();
    for (const QWidget* p = w->parentWidget(); p && !r.isEmpty(); p = p->parentWidget()) {
        r &= QRect(w->mapFrom(p, QPoint(0, 0)), p->size());
        if (p->isWindow()) break;
    }
    return r;
}

bool wholeInSight(const QWidget* w) {
    return w->isVisible() && seenPart(w) == w->rect();
}

// The library dialog scans an empty cache, not this machine's (StudioFixture).
class StudioLayoutTest : public StudioFixture {};

// The smallest screen of the offscreen configuration that holds `size` (logical pixels), else
// the first one.
QScreen* screenOf(const QSize& size) {
    QScreen* best = nullptr;
    for (QScreen* s : QGuiApplication::screens()) {
        const QSize g = s->geometry().size();
        if (g.width() >= size.width() && g.height() >= size.height() &&
            (!best || g.width() < best->geometry().width()))
            best = s;
    }
    return best ? best : QGuiApplication::primaryScreen();
}

void place(QWidget* w, QScreen* screen) {
    w->setScreen(screen);
    w->move(screen->geometry().topLeft());
}

struct Problems {
    QStringList lines;
    void add(const QString& where, const QStringList& found) {
        for (const QString& f : found) lines << where + ": " + f;
    }
};

void settle() {
    // Layouts, the plots' 40 ms replot timers and the main window's deferred sizes.
    for (int i = 0; i < 4; ++i) {
        QCoreApplication::processEvents();
        QTest::qWait(60);
    }
}

void shoot(QWidget* w, const QString& name) {
    const QString dir = qEnvironmentVariable("HALFSCOPE_SHOTS");
    if (dir.isEmpty()) return;
    QDir().mkpath(dir);
    EXPECT_TRUE(w->grab().save(QDir(dir).filePath(name + ".png"))) << name.toStdString();
}

}  // namespace

TEST_F(StudioLayoutTest, EveryViewFitsAt1366x768And1920x1080) {
    QElapsedTimer timer;
    timer.start();
    const bool twice = qEnvironmentVariableIntValue("QT_SCALE_FACTOR") == 2;
    const auto window = openStudio(QString(), [](MainWindow& w) {
        place(&w, screenOf({1366, 768}));
        w.resize(1366, 768);
    });
    MainWindow& w = *window;
    ASSERT_TRUE(w.studio().model().has_value());
    EXPECT_EQ(w.devicePixelRatio(), twice ? 2.0 : 1.0);
    setDemoRun(w, 6);
    w.studio().generate();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !w.studio().isBusy(); }, 120000));
    w.studio().compareBf16VsFp16();
    ASSERT_TRUE(QTest::qWaitFor([&] { return !w.studio().isBusy(); }, 120000));
    ASSERT_NE(w.views().compare->imageView(1), nullptr);

    Problems problems;
    const QString scale = twice ? QStringLiteral("@2x") : QString();
    // 1500x950: the window's first size, where a user saw the Compare tab cut its labels.
    for (const QSize size : {QSize(1366, 768), QSize(1500, 950), QSize(1920, 1080)}) {
        QScreen* screen = screenOf(size);
        place(&w, screen);
        w.resize(size);
        settle();
        const QString tag =
            QStringLiteral("%1x%2%3").arg(size.width()).arg(size.height()).arg(scale);
        if (w.size() != size)
            problems.lines << QStringLiteral("%1: the window is %2x%3, its minimum size %4x%5")
                                  .arg(tag)
                                  .arg(w.width())
                                  .arg(w.height())
                                  .arg(w.minimumSizeHint().width())
                                  .arg(w.minimumSizeHint().height());
        QTabWidget* tabs = w.centralTabs();
        for (int t = 0; t < tabs->count(); ++t) {
            tabs->setCurrentIndex(t);
            const QString tab = shown(tabs->tabText(t)).toLower();
            for (const char* dockName : {"log", "history", "fix"}) {
                auto* dock = w.findChild<QDockWidget*>(dockName);
                ASSERT_NE(dock, nullptr) << dockName;
                dock->raise();
                settle();
                const QString where = QStringLiteral("%1 %2 tab, %3 dock").arg(tag, tab, dockName);
                problems.add(where, cutTexts(&w));
                problems.add(where, cutPlotTexts(&w));
                problems.add(where, hiddenControls(&w));
                // One picture a tab with the log below it, and the other docks under the run.
                if (QLatin1String(dockName) == "log")
                    shoot(&w, QStringLiteral("studio-%1-%2").arg(tag, tab));
                else if (t == 0)
                    shoot(&w, QStringLiteral("studio-%1-%2").arg(tag, dockName));
            }
        }
        w.findChild<QDockWidget*>("log")->raise();

        // The dialogs, on the same screen at the size they open with.
        {
            SettingsDialog settings(nullptr, &w);
            place(&settings, screen);
            settings.show();
            settle();
            const QString where = tag + " settings dialog";
            EXPECT_LE(settings.frameGeometry().width(), size.width()) << where.toStdString();
            EXPECT_LE(settings.frameGeometry().height(), size.height()) << where.toStdString();
            problems.add(where, cutTexts(&settings));
            problems.add(where, hiddenControls(&settings));
            shoot(&settings, QStringLiteral("studio-%1-settings").arg(tag));
        }
        QAction* library = w.findChild<QAction*>("modelLibraryAction");
        ASSERT_NE(library, nullptr);
        library->trigger();
        auto* dialog = w.findChild<LibraryDialog*>();
        ASSERT_NE(dialog, nullptr);
        place(dialog, screen);
        ASSERT_TRUE(QTest::qWaitFor([&] { return !dialog->isScanning(); }, 30000));
        settle();
        const QString where = tag + " model library dialog";
        EXPECT_LE(dialog->frameGeometry().width(), size.width()) << where.toStdString();
        EXPECT_LE(dialog->frameGeometry().height(), size.height()) << where.toStdString();
        problems.add(where, cutTexts(dialog));
        problems.add(where, hiddenControls(dialog));
        shoot(dialog, QStringLiteral("studio-%1-library").arg(tag));
        dialog->hide();
    }
    EXPECT_TRUE(problems.lines.isEmpty()) << problems.lines.size() << " problems:\n"
                                          << problems.lines.join('\n').toStdString();
    std::printf("layout checks took %.1f s\n", timer.elapsed() / 1000.0);
}

// Screens whose sizes a test checks, each with the screen of the configuration that has it.
std::vector<std::pair<QSize, QScreen*>> checkedScreens() {
    std::vector<std::pair<QSize, QScreen*>> out;
    for (const QSize size : {QSize(1366, 768), QSize(1920, 1080)})
        out.emplace_back(size, screenOf(size));
    return out;
}

// Without a saved placement the window takes about 90% of the screen it opens on, all of it
// inside that screen, with Generate and the run's image, curves and previews in sight unscrolled.
TEST_F(StudioLayoutTest, TheFirstSizeFitsTheScreenItOpensOn) {
    for (const auto& [size, screen] : checkedScreens()) {
        QSettings().clear();  // no saved placement: each window is a first launch
        const auto window =
            openStudio(QString(), [screen = screen](MainWindow& w) { w.setScreen(screen); });
        MainWindow& w = *window;
        settle();
        const std::string tag = std::to_string(size.width()) + "x" + std::to_string(size.height());
        ASSERT_EQ(w.screen(), screen) << tag;
        const QRect room = screen->availableGeometry();
        EXPECT_TRUE(room.contains(w.frameGeometry()))
            << tag << ": window at " << w.frameGeometry().x() << "," << w.frameGeometry().y() << " "
            << w.frameGeometry().width() << "x" << w.frameGeometry().height();
        EXPECT_LE(w.width(), room.width() * 0.9 + 1) << tag;
        EXPECT_GE(w.width(), room.width() * 0.8) << tag << ": uses the screen";
        EXPECT_LE(w.height(), room.height() * 0.9 + 1) << tag;
        auto* generate = w.findChild<QPushButton*>("generate");
        ASSERT_NE(generate, nullptr);
        EXPECT_TRUE(wholeInSight(generate)) << tag << ": Generate needs a scroll";
        const StudioViews& v = w.views();
        for (QWidget* view : {static_cast<QWidget*>(v.image), static_cast<QWidget*>(v.plot),
                              static_cast<QWidget*>(v.previews)})
            EXPECT_TRUE(wholeInSight(view))
                << tag << ": " << view->metaObject()->className() << " seen "
                << seenPart(view).height() << " of " << view->height() << " px high";
        shoot(&w, QString::fromStdString("first-size-" + tag));
    }
}

// After a run that fails (the demo's transformer in fp16 overflows at a known layer), the banner
// at the top of the Run tab names the first failing point, in sight on a laptop screen with
// Generate; its Show puts that row of the layer heatmap in sight, whole, among 8 or more rows.
TEST_F(StudioLayoutTest, AFailedRunIsInSightOnALaptopScreen) {
    QScreen* laptop = screenOf({1366, 768});
    const auto window = openStudio(QString(), [laptop](MainWindow& w) { w.setScreen(laptop); });
    MainWindow& w = *window;
    setDemoRun(w, 6);
    w.views().precision->setPlan(hs::PrecisionPlan::parse("transformer=fp16"));
    w.studio().generate();
    ASSERT_TRUE(waitIdle(w));
    settle();
    ASSERT_TRUE(w.studio().lastRun().has_value());
    const auto failure = hs::findFirstFailure(*w.studio().lastRun());
    ASSERT_TRUE(failure && failure->fromProbe);
    const QString point = QString::fromStdString(failure->point);

    FailureBanner* banner = w.views().banner;
    ASSERT_TRUE(banner->isVisible());
    EXPECT_TRUE(banner->text().contains(point)) << banner->text().toStdString();
    EXPECT_TRUE(banner->text().contains(QStringLiteral("step %1").arg(failure->step)));
    EXPECT_TRUE(wholeInSight(banner))
        << "banner seen " << seenPart(banner).height() << " of " << banner->height();
    EXPECT_TRUE(wholeInSight(banner->message()));
    EXPECT_TRUE(wholeInSight(banner->showButton()));
    EXPECT_TRUE(wholeInSight(banner->fixButton()));
    EXPECT_TRUE(wholeInSight(w.findChild<QPushButton*>("generate")));
    EXPECT_TRUE(
        QRect(QPoint(), w.size()).contains(QRect(banner->mapTo(&w, QPoint()), banner->size())));
    shoot(&w, "failed-run-1366x768");

    banner->showButton()->click();
    settle();
    LayerHeatmap* layers = w.views().layers;
    ViewHeatmapGrid* grid = layers->grid();
    int row = -1;
    for (int r = 0; r < layers->rowCount(); ++r)
        if (layers->rowName(r) == point) row = r;
    ASSERT_GE(row, 0);
    const QRect cell = grid->cellRect(row, layers->data().columnOfStep(failure->step));
    const QRect seen = seenPart(grid->viewport());
    EXPECT_TRUE(seen.contains(cell))
        << "the row is cut: cell y " << cell.y() << "-" << cell.bottom() << ", seen y " << seen.y()
        << "-" << seen.bottom();
    const int rowsSeen = (seen.height() - grid->headerHeight()) / grid->cellSize();
    EXPECT_GE(rowsSeen, 8);
    EXPECT_TRUE(layers->detailsText().contains(point));
    EXPECT_TRUE(wholeInSight(banner));
    shoot(&w, "failed-run-shown-1366x768");
}

// Scrolling the Setup panel with the wheel on a laptop screen: when Steps passes under the
// pointer the panel goes on scrolling and Steps keeps its value (it takes the wheel once
// clicked into).
TEST_F(StudioLayoutTest, TheWheelOverSetupScrollsThePanelNotTheSteps) {
    QScreen* laptop = screenOf({1366, 768});
    const auto window = openStudio(QString(), [laptop](MainWindow& w) { w.setScreen(laptop); });
    MainWindow& w = *window;
    settle();
    auto* steps = w.views().prompt->findChild<QAbstractSpinBox*>("steps");
    ASSERT_NE(steps, nullptr);
    QScrollArea* setup = nullptr;
    for (QWidget* p = steps->parentWidget(); p && !setup; p = p->parentWidget())
        setup = qobject_cast<QScrollArea*>(p);
    ASSERT_NE(setup, nullptr);
    QScrollBar* bar = setup->verticalScrollBar();
    ASSERT_GT(bar->maximum(), 0) << "the panel is taller than its dock on this screen";
    setup->ensureWidgetVisible(steps);
    bar->setValue(bar->value() - 40);  // Steps in view, room to scroll down
    settle();
    const QString before = steps->text();
    const QPointF at(steps->width() / 2.0, steps->height() / 2.0);
    const int start = bar->value();
    for (int i = 0; i < 2; ++i) {
        QWheelEvent down(at, steps->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                         Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(steps, &down);
    }
    EXPECT_EQ(steps->text(), before);
    EXPECT_GT(bar->value(), start) << "the panel scrolled";
    EXPECT_FALSE(steps->hasFocus());
}
