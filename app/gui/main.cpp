// halfscope: the studio.
//   halfscope [--model DIR|FILE] [--data-dir DIR] [--prompt TEXT] [--seed N] [--plan RULES]
//             [--generate | --compare] [--screenshot FILE.png]
// --prompt, --seed and --plan fill the panels once the model is loaded; --generate then starts a
// run, --compare the bf16 vs fp16 comparison; --screenshot saves the window after that (or
// after loading) and quits: the README's pictures.
#include <QApplication>
#include <QCommandLineParser>
#include <QLoggingCategory>
#include <QSaveFile>
#include <QScreen>
#include <QTimer>
#include <cstdio>
#include <optional>

#include "main_window.h"
#include "numerics/cpu_bf16.h"
#include "precision_panel.h"
#include "prompt_panel.h"
#include "runtime/runtime.h"
#include "studio.h"
#include "studio_settings.h"
#include "ui_fonts.h"
#include "ui_language.h"
#include "ui_theme.h"

namespace {

// QT_LOGGING_RULES="halfscope.fonts.debug=true" shows what the CJK font check did and its cost.
Q_LOGGING_CATEGORY(lcFonts, "halfscope.fonts", QtWarningMsg)

}  // namespace

int main(int argc, char** argv) {
    hs::ensurePassiveOmpWait(argc, argv);
    QApplication app(argc, argv);
    QApplication::setApplicationName("Halfscope");
    QApplication::setOrganizationName("Halfscope");
    QApplication::setApplicationVersion(HALFSCOPE_VERSION);
    // Before any widget: widgets copy the application font, which may gain the bundled CJK font.
    const QString locale = StudioSettings::effectiveLocale(StudioSettings().language());
    ui_language::installTranslators(locale);
    const cjk::FontCheck fonts = cjk::ensureCjkFont(locale);
    qCDebug(lcFonts, "%s: outcome %d, check %.1f ms, load %.1f ms, %s", qPrintable(locale),
            int(fonts.outcome), fonts.checkMs, fonts.loadMs, qPrintable(fonts.fontFile));
    ui_theme::install(app);  // light, dark or the desktop's (File > Settings), before any window
    try {
        hs::configureRuntime();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "halfscope: %s\n", e.what());
        return 2;
    }
    // $HALFSCOPE_CPU_BF16 wins over the stored setting (File > Settings).
    if (!qEnvironmentVariableIsSet("HALFSCOPE_CPU_BF16"))
        if (auto m = hs::parseCpuBf16(StudioSettings().cpuBf16().toStdString()))
            hs::setCpuBf16Mode(*m);

    QCommandLineParser args;
    args.setApplicationDescription(
        QApplication::translate("main", "Finds out why a diffusion model gives a black image."));
    args.addHelpOption();
    args.addVersionOption();
    QCommandLineOption model(
        "model",
        QApplication::translate("main",
                                "Pipeline folder, or single-file checkpoint, to open (a file set: "
                                "File > Open model files)."),
        "path");
    QCommandLineOption data("data-dir", QApplication::translate("main", "Run history folder."),
                            "dir");
    QCommandLineOption generate(
        "generate", QApplication::translate("main", "Generate once the model is loaded."));
    QCommandLineOption compare(
        "compare",
        QApplication::translate("main", "Compare bf16 and fp16 once the model is loaded."));
    QCommandLineOption shot(
        "screenshot", QApplication::translate("main", "Save the window to this PNG and quit."),
        "file");
    QCommandLineOption prompt("prompt", QApplication::translate("main", "Prompt to start with."),
                              "text");
    QCommandLineOption seed("seed", QApplication::translate("main", "Seed to start with."), "n");
    QCommandLineOption plan(
        "plan",
        QApplication::translate("main", "Precision plan to start with, e.g. %1.")
            .arg("transformer=fp16"),
        "rules");
    args.addOptions({model, data, prompt, seed, plan, generate, compare, shot});
    args.process(app);
    std::optional<hs::PrecisionPlan> startPlan;
    if (args.isSet(plan)) {
        try {
            startPlan = hs::PrecisionPlan::parse(args.value(plan).toStdString());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "halfscope: --plan: %s\n", e.what());
            return 2;
        }
    }
    bool seedOk = true;
    const qulonglong startSeed = args.value(seed).toULongLong(&seedOk);
    if (args.isSet(seed) && !seedOk) {
        std::fprintf(stderr, "halfscope: --seed: not a number: %s\n", qPrintable(args.value(seed)));
        return 2;
    }

    MainWindow window(args.value(data), args.value(model));
    window.show();
    // The welcome at the first launch, unless the command line already says what to do.
    if (!args.isSet(generate) && !args.isSet(compare) && !args.isSet(shot))
        window.showWelcomeAtFirstLaunch();
    if (startPlan || args.isSet(prompt) || args.isSet(seed))
        QObject::connect(
            &window.studio(), &Studio::modelLoaded, &window,
            [&window, &args, &prompt, &seed, startPlan, startSeed] {
                hs::RunConfig cfg;
                window.views().prompt->applyTo(cfg);
                if (args.isSet(prompt)) cfg.prompt = args.value(prompt).toStdString();
                if (args.isSet(seed)) cfg.seed = startSeed;
                window.views().prompt->setFrom(cfg);
                if (startPlan) window.views().precision->setPlan(*startPlan);
            },
            Qt::SingleShotConnection);
    if (args.isSet(generate) || args.isSet(compare) || args.isSet(shot)) {
        const bool run = args.isSet(generate) || args.isSet(compare);
        const bool both = args.isSet(compare);
        const QString file = args.value(shot);
        auto finish = [&window, file] {
            if (file.isEmpty()) return;
            QTimer::singleShot(300, &window, [&window, file] {
                // Written beside and renamed into place: an interrupted save leaves no half PNG.
                QSaveFile out(file);
                if (!out.open(QIODevice::WriteOnly) || !window.grab().save(&out, "PNG") ||
                    !out.commit())
                    qWarning("cannot write the screenshot %s: %s", qPrintable(file),
                             qPrintable(out.errorString()));
                window.close();
            });
        };
        QObject::connect(
            &window.studio(), &Studio::modelLoaded, &window,
            [&window, run, both, finish] {
                if (!run) return finish();
                if (both)
                    window.studio().compareBf16VsFp16();
                else
                    window.studio().generate();
            },
            Qt::SingleShotConnection);
        if (run)
            QObject::connect(&window.studio().controller(), &RunController::idle, &window, finish,
                             Qt::SingleShotConnection);
    }
    return app.exec();
}
