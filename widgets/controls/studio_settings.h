#pragma once
// The studio's settings as QSettings keeps them: every key, its default and how a stored value
// reads back. The keys and values are those the studio has always written, so saved settings
// keep loading:
//   ui/language         "" (the system's language), "en" or "zh_CN"
//   ui/theme            "system" (follow the desktop), "light" or "dark"
//   engine/cpu_bf16     how bf16 runs on the CPU: "emulated", "native" or "auto" (hs::CpuBf16)
//   welcome/shown       the first-launch welcome has been shown
//   window/geometry, window/state                   the main window and its docks
//   run/prompt, run/negative, run/seed, run/steps, run/guidance, run/plan, run/target
//                       the panels' last run
//   model/dir, model/vae, model/textEncoder, ...    the last model and the files of its set
//                       (hs::modelFileSlots: settingsKey)
//   library/comfyui, library/a1111, library/user    the folders added to the model library
// A missing or unknown value reads as the default (the first of the choices listed).
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <memory>

#include "library_sources.h"
#include "records/run_types.h"

class QSettings;

class StudioSettings {
public:
    static constexpr const char* kLanguageKey = "ui/language";
    static constexpr const char* kThemeKey = "ui/theme";
    static constexpr const char* kCpuBf16Key = "engine/cpu_bf16";
    static constexpr const char* kWelcomeShownKey = "welcome/shown";

    // Reads and writes `settings` (not owned); none: the application's QSettings().
    explicit StudioSettings(QSettings* settings = nullptr);
    ~StudioSettings();
    StudioSettings(const StudioSettings&) = delete;
    StudioSettings& operator=(const StudioSettings&) = delete;

    // The values each choice may take, its default first.
    static const QStringList& languages();
    static const QStringList& themes();
    static const QStringList& cpuBf16Modes();
    // The locale to load translations for: `language`, or the system locale's name for "".
    static QString effectiveLocale(const QString& language);

    QString language() const;
    QString theme() const;
    QString cpuBf16() const;
    // Stores the three choices of the settings dialog at once, written to disk now.
    void setChoices(const QString& language, const QString& theme, const QString& cpuBf16);

    bool welcomeShown() const;
    void setWelcomeShown(bool shown);

    // The main window: QMainWindow::saveGeometry() and saveState().
    struct Window {
        QByteArray geometry, state;  // empty when none was saved
        bool saved = false;          // a geometry was saved
    };
    Window window() const;
    void setWindow(const QByteArray& geometry, const QByteArray& state);

    // The panels' last run.
    struct Run {
        hs::RunConfig config;     // its prompt, negative prompt, seed, steps and guidance
        QString plan;             // the precision plan's text
        QString target;           // the precision panel's advice target
        bool stepsSaved = false;  // steps and guidance were saved: they win over a model's own
    };
    Run run() const;
    void setRun(const hs::RunConfig& cfg, const QString& plan, const QString& target);

    // The last model: a pipeline folder or model file, and the files that complete it.
    QString modelDir() const;
    hs::ModelFiles modelFiles() const;
    void setModel(const QString& dir, const hs::ModelFiles& files);

    LibrarySources librarySources() const;
    void setLibrarySources(const LibrarySources& sources);

private:
    std::unique_ptr<QSettings> m_owned;
    QSettings* m_settings;
};
