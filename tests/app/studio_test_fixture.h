#pragma once
// The studio tests' common ground: settings in a temporary folder, the user's folders out of reach
// (HOME, the Hugging Face caches, XDG cache and config point into it), and a shown window on the
// demo model. Qt and project headers only: a test that includes LibTorch (torch_include.h)
// includes this after it.
#include <gtest/gtest.h>

#include <QByteArray>
#include <QDir>
#include <QLabel>
#include <QSettings>
#include <QString>
#include <QTemporaryDir>
#include <QTest>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "main_window.h"
#include "model_panel.h"
#include "prompt_panel.h"
#include "runtime/demo_location.h"
#include "studio.h"

class StudioFixture : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(m_dir.isValid());
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath("settings"));
        // The model library, its header cache and the theme read these: the test's empty
        // folders, never the user's. HF_HUB_CACHE unset: the hub is $HF_HOME/hub.
        ASSERT_TRUE(QDir().mkpath(m_dir.filePath("home")));
        setEnv("HOME", m_dir.filePath("home"));
        setEnv("HF_HOME", m_dir.filePath("hf"));
        setEnv("HF_HUB_CACHE", std::nullopt);
        setEnv("XDG_CACHE_HOME", m_dir.filePath("cache"));
        setEnv("XDG_CONFIG_HOME", m_dir.filePath("config"));
        ASSERT_FALSE(hs::findDemoModel().empty()) << "resources/demo-model is missing";
    }
    // The environment as it was: later tests in the binary never see a removed folder.
    void TearDown() override {
        for (auto it = m_savedEnv.rbegin(); it != m_savedEnv.rend(); ++it) {
            if (it->second)
                qputenv(it->first, *it->second);
            else
                qunsetenv(it->first);
        }
        m_savedEnv.clear();
    }

    // Sets (or, with nullopt, unsets) a variable until the test ends.
    void setEnv(const char* name, const std::optional<QString>& value) {
        std::optional<QByteArray> old;
        if (qEnvironmentVariableIsSet(name)) old = qgetenv(name);
        m_savedEnv.emplace_back(name, std::move(old));
        if (value)
            qputenv(name, value->toUtf8());
        else
            qunsetenv(name);
    }

    // A shown window on `model` (the demo when empty), its history in m_dir/`history`, once the
    // model is loaded and the studio idle. `beforeShow` runs on the window before it is shown.
    std::unique_ptr<MainWindow> openStudio(
        const QString& model = QString(),
        const std::function<void(MainWindow&)>& beforeShow = nullptr,
        const QString& history = QStringLiteral("history")) {
        auto w = std::make_unique<MainWindow>(
            m_dir.filePath(history),
            model.isEmpty() ? QString::fromStdString(hs::findDemoModel()) : model);
        if (beforeShow) beforeShow(*w);
        w->show();
        EXPECT_TRUE(QTest::qWaitFor([&] { return w->studio().model().has_value(); }, 60000));
        EXPECT_TRUE(QTest::qWaitFor([&] { return !w->studio().isBusy(); }, 60000));
        return w;
    }

    // The prompt panel's settings as they stand.
    static hs::RunConfig panelRun(MainWindow& w) {
        hs::RunConfig cfg;
        w.views().prompt->applyTo(cfg);
        return cfg;
    }
    // Sets the tests' short run of the demo in the prompt panel: the red circle, seed 3, `steps`
    // steps, the rest from `cfg` (the defaults, or panelRun()).
    static void setDemoRun(MainWindow& w, int steps, hs::RunConfig cfg = hs::RunConfig()) {
        cfg.prompt = "a large red circle in the centre, blue background";
        cfg.seed = 3;
        cfg.steps = steps;
        w.views().prompt->setFrom(cfg);
    }

    // A shown window on the demo with the tests' short run of `steps` steps set.
    std::unique_ptr<MainWindow> openDemo(int steps = 4) {
        auto w = openStudio();
        setDemoRun(*w, steps);
        return w;
    }
    // The FLUX.1 file set the studio loaded: which files it took for the VAE and the two text
    // encoders, and the model panel naming the model `name` and listing each of `lines`.
    static void expectFlux1FileSet(MainWindow& w, const std::string& vae, const std::string& clipL,
                                   const std::string& t5, const QString& name,
                                   std::initializer_list<const char*> lines) {
        const LoadedModel& m = *w.studio().model();
        EXPECT_EQ(m.files.vae, vae);
        EXPECT_EQ(m.files.textEncoder, clipL);
        EXPECT_EQ(m.files.textEncoder2, t5);
        auto* panel = w.views().model;
        EXPECT_EQ(panel->findChild<QLabel*>("modelName")->text(), name);
        const QString files = panel->findChild<QLabel*>("modelFiles")->text();
        for (const char* line : lines) EXPECT_TRUE(files.contains(line)) << files.toStdString();
    }
    // Whether the studio is idle within two minutes.
    static bool waitIdle(MainWindow& w) {
        return QTest::qWaitFor([&] { return !w.studio().isBusy(); }, 120000);
    }

    QTemporaryDir m_dir;

private:
    std::vector<std::pair<const char*, std::optional<QByteArray>>> m_savedEnv;
};
