#include "studio_settings.h"

#include <QLocale>
#include <QSettings>
#include <QVariant>

namespace {

// The stored value of `key` when it is one of `choices`, else the first choice.
QString choice(const QSettings& s, const char* key, const QStringList& choices) {
    const QString v = s.value(key).toString();
    return choices.contains(v) ? v : choices.front();
}

const char* const kGeometryKey = "window/geometry";
const char* const kStateKey = "window/state";
const char* const kPromptKey = "run/prompt";
const char* const kNegativeKey = "run/negative";
const char* const kSeedKey = "run/seed";
const char* const kStepsKey = "run/steps";
const char* const kGuidanceKey = "run/guidance";
const char* const kPlanKey = "run/plan";
const char* const kTargetKey = "run/target";
const char* const kModelDirKey = "model/dir";
const char* const kComfyUiKey = "library/comfyui";
const char* const kA1111Key = "library/a1111";
const char* const kUserFoldersKey = "library/user";

}  // namespace

StudioSettings::StudioSettings(QSettings* settings)
    : m_owned(settings ? nullptr : new QSettings),
      m_settings(settings ? settings : m_owned.get()) {}

StudioSettings::~StudioSettings() = default;

const QStringList& StudioSettings::languages() {
    static const QStringList v{QString(), QStringLiteral("en"), QStringLiteral("zh_CN")};
    return v;
}

const QStringList& StudioSettings::themes() {
    static const QStringList v{QStringLiteral("system"), QStringLiteral("light"),
                               QStringLiteral("dark")};
    return v;
}

const QStringList& StudioSettings::cpuBf16Modes() {
    static const QStringList v{QStringLiteral("emulated"), QStringLiteral("native"),
                               QStringLiteral("auto")};
    return v;
}

QString StudioSettings::effectiveLocale(const QString& language) {
    return language.isEmpty() ? QLocale::system().name() : language;
}

QString StudioSettings::language() const {
    return choice(*m_settings, kLanguageKey, languages());
}

QString StudioSettings::theme() const {
    return choice(*m_settings, kThemeKey, themes());
}

QString StudioSettings::cpuBf16() const {
    return choice(*m_settings, kCpuBf16Key, cpuBf16Modes());
}

void StudioSettings::setChoices(const QString& language, const QString& theme,
                                const QString& cpuBf16) {
    m_settings->setValue(kLanguageKey, language);
    m_settings->setValue(kCpuBf16Key, cpuBf16);
    m_settings->setValue(kThemeKey, theme);
    m_settings->sync();
}

bool StudioSettings::welcomeShown() const {
    return m_settings->value(kWelcomeShownKey, false).toBool();
}

void StudioSettings::setWelcomeShown(bool shown) {
    m_settings->setValue(kWelcomeShownKey, shown);
}

StudioSettings::Window StudioSettings::window() const {
    return {m_settings->value(kGeometryKey).toByteArray(),
            m_settings->value(kStateKey).toByteArray(), m_settings->contains(kGeometryKey)};
}

void StudioSettings::setWindow(const QByteArray& geometry, const QByteArray& state) {
    m_settings->setValue(kGeometryKey, geometry);
    m_settings->setValue(kStateKey, state);
}

StudioSettings::Run StudioSettings::run() const {
    const QSettings& s = *m_settings;
    Run run;
    hs::RunConfig& cfg = run.config;
    cfg.prompt =
        s.value(kPromptKey, QString::fromUtf8(hs::kDefaultPrompt))
            .toString()
            .toStdString();
    cfg.negativePrompt = s.value(kNegativeKey).toString().toStdString();
    cfg.seed = s.value(kSeedKey, QVariant::fromValue<qulonglong>(hs::kDefaultSeed)).toULongLong();
    cfg.steps = s.value(kStepsKey, 20).toInt();
    cfg.guidance = s.value(kGuidanceKey, 4.0).toDouble();
    run.plan = s.value(kPlanKey).toString();
    run.target = s.value(kTargetKey).toString();
    run.stepsSaved = s.contains(kStepsKey);
    return run;
}

void StudioSettings::setRun(const hs::RunConfig& cfg, const QString& plan, const QString& target) {
    QSettings& s = *m_settings;
    s.setValue(kPromptKey, QString::fromStdString(cfg.prompt));
    s.setValue(kNegativeKey, QString::fromStdString(cfg.negativePrompt));
    s.setValue(kSeedKey, QVariant::fromValue<qulonglong>(cfg.seed));
    s.setValue(kStepsKey, cfg.steps);
    s.setValue(kGuidanceKey, cfg.guidance);
    s.setValue(kPlanKey, plan);
    s.setValue(kTargetKey, target);
}

QString StudioSettings::modelDir() const {
    return m_settings->value(kModelDirKey).toString();
}

hs::ModelFiles StudioSettings::modelFiles() const {
    hs::ModelFiles files;
    for (const auto& slot : hs::modelFileSlots())
        files.*slot.path = m_settings->value(slot.settingsKey).toString().toStdString();
    return files;
}

void StudioSettings::setModel(const QString& dir, const hs::ModelFiles& files) {
    m_settings->setValue(kModelDirKey, dir);
    for (const auto& slot : hs::modelFileSlots()) {
        const std::string& f = files.*slot.path;
        if (f.empty())
            m_settings->remove(slot.settingsKey);
        else
            m_settings->setValue(slot.settingsKey, QString::fromStdString(f));
    }
}

LibrarySources StudioSettings::librarySources() const {
    LibrarySources out;
    out.comfyui = m_settings->value(kComfyUiKey).toStringList();
    out.a1111 = m_settings->value(kA1111Key).toStringList();
    out.user = m_settings->value(kUserFoldersKey).toStringList();
    return out;
}

void StudioSettings::setLibrarySources(const LibrarySources& sources) {
    m_settings->setValue(kComfyUiKey, sources.comfyui);
    m_settings->setValue(kA1111Key, sources.a1111);
    m_settings->setValue(kUserFoldersKey, sources.user);
}
