#pragma once
// Application settings: the interface language, stored in QSettings under
// SettingsDialog::kLanguageKey ("ui/language") as "" (system default), "en" or "zh_CN", and how
// bf16 runs on the CPU, under kCpuBf16Key ("engine/cpu_bf16") as "emulated" (default),
// "native" or "auto" (see hs::CpuBf16). The dialog only stores the choices and says so
// (languageChanged, cpuBf16Changed); the app installs the QTranslator at start-up and applies
// the bf16 mode to the engine.
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

    // The choices shown in the dialog (not yet stored until accepted).
    QString language() const;
    void setLanguage(const QString& language);
    QString cpuBf16() const;
    void setCpuBf16(const QString& mode);
    // Whether the CPU has bf16 instructions (changes the wording of the bf16 choices).
    void setCpuHasBf16Instructions(bool has);

    // Stores the choices; emits languageChanged(effectiveLocale(choice)) and
    // cpuBf16Changed(mode) for those that changed.
    void accept() override;

signals:
    void languageChanged(const QString& locale);
    void cpuBf16Changed(const QString& mode);

private:
    QSettings* m_settings;
    bool m_ownsSettings = false;
    QComboBox* m_language;
    QLabel* m_note;
    QComboBox* m_cpuBf16;
    QLabel* m_cpuBf16Note;
    bool m_bf16Instructions = false;
    void updateCpuBf16Note();
};
