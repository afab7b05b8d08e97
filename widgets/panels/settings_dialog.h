#pragma once
// Application settings: the interface language, stored in QSettings under
// SettingsDialog::kLanguageKey ("ui/language") as "" (system default), "en" or "zh_CN", and how
// bf16 runs on the CPU, under kCpuBf16Key ("engine/cpu_bf16") as "emulated" (default),
// "native" or "auto" (see hs::CpuBf16), and the theme, under kThemeKey ("ui/theme") as
// "system" (default: follow the desktop), "light" or "dark". The dialog only stores the choices
// and says so (languageChanged, cpuBf16Changed, themeChanged); the app installs the QTranslator
// at start-up, applies the bf16 mode to the engine and the theme to the application.
#include <QDialog>
#include <QString>

class QComboBox;
class QLabel;
class QSettings;

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    static constexpr const char* kLanguageKey = "ui/language";
    static constexpr const char* kCpuBf16Key = "engine/cpu_bf16";
    static constexpr const char* kThemeKey = "ui/theme";

    // `settings` (not owned) defaults to a QSettings() of the application.
    explicit SettingsDialog(QSettings* settings = nullptr, QWidget* parent = nullptr);
    ~SettingsDialog() override;

    // The stored language: "", "en" or "zh_CN" ("" also for a missing or unknown value).
    static QString storedLanguage(const QSettings& settings);
    // The locale to load translations for: `language`, or the system locale's name for "".
    static QString effectiveLocale(const QString& language);

    // The stored bf16 mode: "emulated", "native" or "auto" (a missing or unknown value reads
    // as "emulated").
    static QString storedCpuBf16(const QSettings& settings);

    // The stored theme: "system", "light" or "dark" (a missing or unknown value reads as
    // "system").
    static QString storedTheme(const QSettings& settings);

    // The choices shown in the dialog (not yet stored until accepted).
    QString language() const;
    void setLanguage(const QString& language);
    QString cpuBf16() const;
    void setCpuBf16(const QString& mode);
    QString theme() const;
    void setTheme(const QString& theme);
    // Whether the CPU has bf16 instructions (changes the wording of the bf16 choices).
    void setCpuHasBf16Instructions(bool has);

    // Stores the choices; emits languageChanged(effectiveLocale(choice)),
    // cpuBf16Changed(mode) and themeChanged(theme) for those that changed.
    void accept() override;

signals:
    void languageChanged(const QString& locale);
    void cpuBf16Changed(const QString& mode);
    void themeChanged(const QString& theme);

private:
    QSettings* m_settings;
    bool m_ownsSettings = false;
    QComboBox* m_language;
    QLabel* m_note;
    QComboBox* m_cpuBf16;
    QLabel* m_cpuBf16Note;
    QComboBox* m_theme;
    bool m_bf16Instructions = false;
    void updateCpuBf16Note();
};
