// The light and dark themes (app/gui/ui_theme.h) and the plots following them
// (widgets/controls/ctl_plot_style.h): the system resolver on a fake HOME, the setting over the
// system, the dark palette on the application, and a real StepPlot's background, axes, legend
// and curves, with their contrast measured, on both themes. Offscreen, real widgets.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStyle>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <atomic>
#include <cmath>
#include <optional>

#include "compare_view.h"
#include "ctl_plot_style.h"
#include "ctl_style.h"
#include "settings_dialog.h"
#include "step_plot.h"
#include "studio_settings.h"
#include "ui_theme.h"

#ifdef HALFSCOPE_HAVE_QTDBUS
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusVariant>
#include <QDBusVirtualObject>
#endif

using ui_theme::Scheme;

namespace {

void writeFile(const QString& path, const QByteArray& text) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(text);
}

// A desktop with nothing to say but its (light) palette; the portal off, so the machine's own
// desktop never answers.
ui_theme::Sources fakeDesktop(const QString& home) {
    ui_theme::Sources s;
    s.home = home;
    s.portal = false;
    s.palette = QApplication::style()->standardPalette();
    return s;
}

hs::TensorStats stats(double absMax) {
    hs::TensorStats t;
    t.count = t.finite = 4096;
    t.min = -absMax;
    t.max = t.absMax = absMax;
    t.mean = absMax * 0.1;
    t.std = absMax * 0.3;
    return t;
}

hs::StepRecord step(int i, double absMax) {
    hs::StepRecord r;
    r.step = i;
    r.sigma = 1.0 - i / 10.0;
    r.latent = stats(absMax);
    r.denoised = stats(absMax * 0.5);
    r.velocity = stats(absMax * 2);
    return r;
}

// Lets queued replots and palette events run.
void settle() {
    for (int i = 0; i < 5; ++i) {
        QApplication::processEvents();
        QTest::qWait(20);
    }
}

struct PlotLook {
    QColor background;  // a pixel of the plot outside the curves
    QColor tickLabel;   // the axes' text
    QColor axisLabel;
    QColor legendText;
    double worstCurve;  // lowest contrast of a curve against the background
};

PlotLook lookOf(QCustomPlot* plot) {
    plot->replot();
    const QImage img = plot->grab().toImage();
    PlotLook l;
    l.background = img.pixelColor(2, 2);
    l.tickLabel = plot->xAxis->tickLabelColor();
    l.axisLabel = plot->yAxis->labelColor();
    l.legendText = plot->legend->textColor();
    l.worstCurve = 21;
    for (int i = 0; i < plot->graphCount(); ++i)
        if (plot->graph(i)->visible())
            l.worstCurve = std::min(
                l.worstCurve, ctl::contrastRatio(plot->graph(i)->pen().color(), l.background));
    return l;
}

#ifdef HALFSCOPE_HAVE_QTDBUS
// The freedesktop portal's Settings interface as xdg-desktop-portal serves it: Read answers
// variant(variant(uint32 color-scheme)); 1 prefer dark, 2 prefer light.
class FakePortal : public QDBusVirtualObject {
public:
    std::atomic<uint> scheme{1};
    bool handleMessage(const QDBusMessage& m, const QDBusConnection& c) override {
        if (m.interface() != "org.freedesktop.portal.Settings" || m.member() != "Read")
            return false;
        const auto args = m.arguments();
        if (args.size() != 2 || args[0].toString() != "org.freedesktop.appearance" ||
            args[1].toString() != "color-scheme") {
            c.send(m.createErrorReply("org.freedesktop.portal.Error.NotFound", "no such key"));
            return true;
        }
        const QVariant inner = QVariant::fromValue(QDBusVariant(QVariant::fromValue(uint(scheme))));
        c.send(m.createReply(QVariant::fromValue(QDBusVariant(inner))));
        return true;
    }
    QString introspect(const QString&) const override { return {}; }
};

// A private session bus (dbus-daemon) with the fake portal on its own connection and thread, as
// a separate process would be; DBUS_SESSION_BUS_ADDRESS points at it before Qt first uses it.
class PortalBus {
public:
    bool start() {
        m_daemon.start("dbus-daemon", {"--session", "--nofork", "--print-address"});
        if (!m_daemon.waitForStarted(5000) || !m_daemon.waitForReadyRead(5000)) return false;
        const QByteArray address = m_daemon.readLine().trimmed();
        if (address.isEmpty()) return false;
        qputenv("DBUS_SESSION_BUS_ADDRESS", address);
        m_thread.start();
        bool ok = false;
        QMetaObject::invokeMethod(
            &m_anchor,
            [&] {
                QDBusConnection c =
                    QDBusConnection::connectToBus(QDBusConnection::SessionBus, "fake-portal");
                ok = c.isConnected() && c.registerService("org.freedesktop.portal.Desktop") &&
                     c.registerVirtualObject("/org/freedesktop/portal/desktop", &portal);
            },
            Qt::BlockingQueuedConnection);
        return ok;
    }
    void announce(uint scheme) {
        portal.scheme = scheme;
        QMetaObject::invokeMethod(
            &m_anchor,
            [scheme] {
                QDBusMessage sig =
                    QDBusMessage::createSignal("/org/freedesktop/portal/desktop",
                                               "org.freedesktop.portal.Settings", "SettingChanged");
                sig << QStringLiteral("org.freedesktop.appearance")
                    << QStringLiteral("color-scheme")
                    << QVariant::fromValue(QDBusVariant(QVariant::fromValue(scheme)));
                QDBusConnection(QStringLiteral("fake-portal")).send(sig);
            },
            Qt::BlockingQueuedConnection);
    }
    PortalBus() {
        m_anchor.moveToThread(&m_thread);
        portal.moveToThread(&m_thread);
    }
    ~PortalBus() {
        QMetaObject::invokeMethod(
            &m_anchor, [] { QDBusConnection::disconnectFromBus("fake-portal"); },
            Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
        m_daemon.kill();
        m_daemon.waitForFinished(3000);
    }
    FakePortal portal;

private:
    QProcess m_daemon;
    QThread m_thread;
    QObject m_anchor;
};
#endif

class ThemeTest : public ::testing::Test {
protected:
    void TearDown() override { ui_theme::applySetting("light"); }
};

}  // namespace

TEST(UiThemeResolver, GtkPreferDarkInAFakeHomeGivesDark) {
    QTemporaryDir home;
    writeFile(home.filePath(".config/gtk-3.0/settings.ini"),
              "[Settings]\ngtk-theme-name=Adwaita\ngtk-application-prefer-dark-theme=1\n");
    const auto s = ui_theme::systemScheme(fakeDesktop(home.path()));
    EXPECT_EQ(s.scheme, Scheme::Dark);
    EXPECT_EQ(s.source, home.filePath(".config/gtk-3.0/settings.ini"));
}

TEST(UiThemeResolver, WithoutGtkSettingsTheLightPaletteGivesLight) {
    QTemporaryDir home;
    const auto s = ui_theme::systemScheme(fakeDesktop(home.path()));
    EXPECT_EQ(s.scheme, Scheme::Light);
    EXPECT_EQ(s.source, "palette");
    // The palette is the last word: a dark one from the platform means dark.
    auto dark = fakeDesktop(home.path());
    dark.palette = ui_theme::darkPalette();
    EXPECT_EQ(ui_theme::systemScheme(dark).scheme, Scheme::Dark);
}

TEST(UiThemeResolver, GtkSaysLightOrDarkInEachOfItsWays) {
    QTemporaryDir home;
    auto s = fakeDesktop(home.path());
    writeFile(home.filePath(".config/gtk-3.0/settings.ini"),
              "[Settings]\ngtk-application-prefer-dark-theme=false\n");
    EXPECT_EQ(ui_theme::systemScheme(s).scheme, Scheme::Light);
    EXPECT_NE(ui_theme::systemScheme(s).source, "palette") << "the file answered";
    writeFile(home.filePath(".config/gtk-3.0/settings.ini"),
              "[Settings]\ngtk-theme-name=Adwaita-dark\n");
    EXPECT_EQ(ui_theme::systemScheme(s).scheme, Scheme::Dark);
    // A key outside [Settings] is not GTK's.
    writeFile(home.filePath(".config/gtk-3.0/settings.ini"),
              "[Other]\ngtk-application-prefer-dark-theme=1\n");
    EXPECT_EQ(ui_theme::systemScheme(s).source, "palette");
    // $GTK_THEME wins over the file.
    s.gtkTheme = "Adwaita:dark";
    EXPECT_EQ(ui_theme::systemScheme(s).scheme, Scheme::Dark);
    EXPECT_EQ(ui_theme::systemScheme(s).source, "GTK_THEME");
    // $XDG_CONFIG_HOME moves the file; GTK 4's is read too.
    s.gtkTheme.clear();
    QTemporaryDir config;
    s.xdgConfigHome = config.path();
    writeFile(config.filePath("gtk-4.0/settings.ini"),
              "[Settings]\ngtk-application-prefer-dark-theme = 1\n");
    EXPECT_EQ(ui_theme::systemScheme(s).scheme, Scheme::Dark);
    EXPECT_EQ(ui_theme::systemScheme(s).source, config.filePath("gtk-4.0/settings.ini"));
}

TEST(UiThemeResolver, TheSettingOverridesTheSystem) {
    QTemporaryDir home;
    writeFile(home.filePath(".config/gtk-3.0/settings.ini"),
              "[Settings]\ngtk-application-prefer-dark-theme=1\n");
    const auto darkDesktop = fakeDesktop(home.path());
    EXPECT_EQ(ui_theme::resolve("light", darkDesktop).scheme, Scheme::Light);
    EXPECT_EQ(ui_theme::resolve("dark", darkDesktop).scheme, Scheme::Dark);
    EXPECT_EQ(ui_theme::resolve("system", darkDesktop).scheme, Scheme::Dark);
    QTemporaryDir empty;
    const auto lightDesktop = fakeDesktop(empty.path());
    EXPECT_EQ(ui_theme::resolve("dark", lightDesktop).scheme, Scheme::Dark);
    EXPECT_EQ(ui_theme::resolve("system", lightDesktop).scheme, Scheme::Light);
}

TEST_F(ThemeTest, DarkPaletteOnTheApplicationAndBackToLight) {
    ui_theme::applySetting("light");
    const QColor lightWindow = QApplication::palette().color(QPalette::Window);
    EXPECT_GT(lightWindow.lightnessF(), 0.7);
    ui_theme::applySetting("dark");
    const QPalette p = QApplication::palette();
    EXPECT_LT(p.color(QPalette::Window).lightnessF(), 0.25);
    EXPECT_LT(p.color(QPalette::Base).lightnessF(), 0.25);
    EXPECT_GT(p.color(QPalette::WindowText).lightnessF(), 0.8);
    EXPECT_GT(p.color(QPalette::Text).lightnessF(), 0.8);
    EXPECT_GE(ctl::contrastRatio(p.color(QPalette::WindowText), p.color(QPalette::Window)), 4.5);
    EXPECT_EQ(QApplication::style()->name().toLower(), "fusion");
    EXPECT_EQ(ui_theme::current().scheme, Scheme::Dark);
    EXPECT_EQ(ui_theme::current().source, "setting");
    // A widget made now and one made before both show it.
    QLabel label("text");
    EXPECT_EQ(label.palette().color(QPalette::Window), p.color(QPalette::Window));
    ui_theme::applySetting("light");
    settle();  // existing widgets hear of it through events
    EXPECT_EQ(QApplication::palette().color(QPalette::Window), lightWindow);
    EXPECT_EQ(label.palette().color(QPalette::Window), lightWindow);
}

TEST_F(ThemeTest, StepPlotFollowsThePaletteWithReadableTextAndCurves) {
    ui_theme::applySetting("light");
    StepPlot plot;
    plot.resize(640, 400);
    plot.setRunLabels({"bf16", "fp16"});
    plot.setStepCount(8);
    for (int i = 0; i < 8; ++i) {
        plot.addStep(0, step(i, 1.0 + i));
        plot.addStep(1, step(i, 100.0 * (i + 1)));
    }
    plot.show();
    settle();
    const PlotLook light = lookOf(plot.plot());
    ui_theme::applySetting("dark");
    settle();
    const PlotLook dark = lookOf(plot.plot());
    ui_theme::applySetting("light");
    settle();
    const PlotLook lightAgain = lookOf(plot.plot());

    EXPECT_GT(light.background.lightnessF(), 0.9) << light.background.name().toStdString();
    EXPECT_LT(dark.background.lightnessF(), 0.2) << dark.background.name().toStdString();
    EXPECT_EQ(dark.background, ui_theme::darkPalette().color(QPalette::Base));
    EXPECT_LT(light.tickLabel.lightnessF(), 0.3);
    EXPECT_GT(dark.tickLabel.lightnessF(), 0.7);
    for (const PlotLook* l : {&light, &dark, &lightAgain}) {
        const double text = ctl::contrastRatio(l->tickLabel, l->background);
        std::printf("background %s, text %s: contrast %.1f:1, lowest curve %.1f:1\n",
                    qPrintable(l->background.name()), qPrintable(l->tickLabel.name()), text,
                    l->worstCurve);
        EXPECT_GE(text, ctl::kTextContrast);
        EXPECT_GE(ctl::contrastRatio(l->axisLabel, l->background), ctl::kTextContrast);
        EXPECT_GE(ctl::contrastRatio(l->legendText, l->background), ctl::kTextContrast);
        EXPECT_GE(l->worstCurve, ctl::kGraphicContrast);
    }
    // Back to light: the curves have the colours the plot gave them, not the dark ones.
    EXPECT_EQ(lightAgain.background, light.background);
    EXPECT_EQ(plot.graph(0, StepPlot::AbsMax)->pen().color(),
              ctl::readableOn(plot.graph(0, StepPlot::AbsMax)->pen().color(), light.background,
                              ctl::kGraphicContrast));
}

TEST_F(ThemeTest, SingleRunSeriesAndCompareDivergenceStayReadableOnDark) {
    ui_theme::applySetting("dark");
    StepPlot plot;
    plot.resize(640, 400);
    for (int i = 0; i < 6; ++i) plot.addStep(0, step(i, 1.0 + i));
    for (auto s : {StepPlot::Min, StepPlot::Max, StepPlot::AbsMax, StepPlot::Mean, StepPlot::Std})
        plot.setSeriesVisible(s, true);
    CompareView compare;
    compare.resize(900, 700);
    compare.setStepCount(6);
    compare.setDivergence({0.1, 0.2, 0.4, 0.8, 1.6, 3.2});
    plot.show();
    compare.show();
    settle();
    const PlotLook single = lookOf(plot.plot());
    EXPECT_GE(single.worstCurve, ctl::kGraphicContrast) << "the mean curve is near-black on light";
    const PlotLook divergence = lookOf(compare.divergencePlot());
    EXPECT_LT(divergence.background.lightnessF(), 0.2);
    EXPECT_GE(divergence.worstCurve, ctl::kGraphicContrast);
    EXPECT_GE(ctl::contrastRatio(divergence.tickLabel, divergence.background), ctl::kTextContrast);
}

TEST_F(ThemeTest, SubtleTextFollowsTheTheme) {
    ui_theme::applySetting("light");
    QWidget parent;
    auto* note = new QLabel("secondary", &parent);
    ctl::setSubtle(note);
    const auto contrast = [&] {
        return ctl::contrastRatio(note->palette().color(QPalette::WindowText),
                                  note->palette().color(QPalette::Window));
    };
    EXPECT_GE(contrast(), ctl::kTextContrast);
    ui_theme::applySetting("dark");
    settle();
    EXPECT_GT(note->palette().color(QPalette::WindowText).lightnessF(), 0.5);
    EXPECT_GE(contrast(), ctl::kTextContrast);
}

// The portal first: it answers over a real (private) D-Bus session, wins over GTK's file, and its
// SettingChanged signal switches the running application while the setting is "system".
#ifdef HALFSCOPE_HAVE_QTDBUS
TEST(UiThemePortal, ThePortalDecidesAndItsChangeIsFollowed) {
    if (QStandardPaths::findExecutable("dbus-daemon").isEmpty())
        GTEST_SKIP() << "no dbus-daemon (package dbus)";
    QTemporaryDir dir;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.filePath("settings"));
    PortalBus bus;
    ASSERT_TRUE(bus.start());
    QTemporaryDir home;
    writeFile(home.filePath(".config/gtk-3.0/settings.ini"),
              "[Settings]\ngtk-application-prefer-dark-theme=0\n");
    auto s = fakeDesktop(home.path());
    s.portal = true;
    QElapsedTimer t;
    t.start();
    EXPECT_EQ(ui_theme::portalScheme(), Scheme::Dark);
    std::printf("portal Read answered in %lld ms\n", static_cast<long long>(t.elapsed()));
    EXPECT_EQ(ui_theme::systemScheme(s).scheme, Scheme::Dark);
    EXPECT_EQ(ui_theme::systemScheme(s).source, "portal");
    bus.portal.scheme = 0;  // no preference: the next source answers
    EXPECT_EQ(ui_theme::portalScheme(), std::nullopt);
    EXPECT_EQ(ui_theme::systemScheme(s).scheme, Scheme::Light);
    EXPECT_NE(ui_theme::systemScheme(s).source, "portal");

    // The running application: the stored setting is "system" (nothing stored).
    bus.portal.scheme = 1;
    ui_theme::install(*qApp);
    EXPECT_EQ(ui_theme::current().source, "portal");
    EXPECT_EQ(ui_theme::current().scheme, Scheme::Dark);
    EXPECT_LT(QApplication::palette().color(QPalette::Window).lightnessF(), 0.25);
    bus.announce(2);
    EXPECT_TRUE(QTest::qWaitFor([] { return ui_theme::current().scheme == Scheme::Light; }, 5000));
    EXPECT_GT(QApplication::palette().color(QPalette::Window).lightnessF(), 0.7);
    bus.announce(1);
    EXPECT_TRUE(QTest::qWaitFor([] { return ui_theme::current().scheme == Scheme::Dark; }, 5000));
    // A chosen theme is not moved by the desktop.
    ui_theme::applySetting("light");
    bus.announce(1);
    QTest::qWait(200);
    EXPECT_EQ(ui_theme::current().scheme, Scheme::Light);
    EXPECT_EQ(ui_theme::current().source, "setting");
}
#endif

TEST(UiThemeSetting, TheSettingsDialogStoresTheThemeAndSaysSo) {
    QTemporaryDir dir;
    QSettings settings(dir.filePath("s.ini"), QSettings::IniFormat);
    EXPECT_EQ(StudioSettings(&settings).theme(), "system");
    settings.setValue(StudioSettings::kThemeKey, "purple");
    EXPECT_EQ(StudioSettings(&settings).theme(), "system") << "an unknown value";
    SettingsDialog dialog(&settings);
    EXPECT_EQ(dialog.theme(), "system");
    QSignalSpy changed(&dialog, &SettingsDialog::themeChanged);
    dialog.setTheme("dark");
    dialog.accept();
    ASSERT_EQ(changed.count(), 1);
    EXPECT_EQ(changed.at(0).at(0).toString(), "dark");
    EXPECT_EQ(StudioSettings(&settings).theme(), "dark");
    SettingsDialog again(&settings);
    EXPECT_EQ(again.theme(), "dark");
    QSignalSpy unchanged(&again, &SettingsDialog::themeChanged);
    again.accept();
    EXPECT_EQ(unchanged.count(), 0);
}

TEST(ContrastRatio, KnownValues) {
    EXPECT_NEAR(ctl::contrastRatio(Qt::black, Qt::white), 21.0, 1e-6);
    EXPECT_NEAR(ctl::contrastRatio(Qt::white, Qt::white), 1.0, 1e-9);
    EXPECT_NEAR(ctl::contrastRatio(QColor(118, 118, 118), Qt::white), 4.54,
                0.01);  // WCAG's AA grey
    const QColor nearBlack(25, 25, 25), darkBack(30, 30, 32);
    const QColor fixed = ctl::readableOn(nearBlack, darkBack, 3.0);
    EXPECT_GE(ctl::contrastRatio(fixed, darkBack), 3.0);
    EXPECT_EQ(ctl::readableOn(QColor(0, 114, 178), Qt::white, 3.0), QColor(0, 114, 178));
}
