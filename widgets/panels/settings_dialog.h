#pragma once
// Application settings: the interface language, the theme and how bf16 runs on the CPU (their
// keys, values and defaults: StudioSettings). The dialog only stores the choices and says so
// (languageChanged, cpuBf16Changed, themeChanged); the app installs the QTranslator at start-up,
// applies the bf16 mode to the engine and the theme to the application.
#include <QDialog>
#include <QString>

#include "studio_settings.h"

class QComboBox;
class QLabel;
class QSettings;

class SettingsDialog : public QDialog {
    Q_OBJECT
public:
    // `settings` (not owned) defaults to a QSettings() of the application.
    explicit SettingsDialog(QSettings* settings = nullptr, QWidget* parent = nullptr);
    ~SettingsDialog() override;

    // The choices shown in the dialog (not yet stored until accepted).
    QString language() const;
    void setLanguage(const QString& language);
    QString cpuBf16() const;
    void setCpuBf16(const QString& mode);
    QString theme() const;
    void setTheme(const QString& theme);
    // Whether the CPU has bf16 instructions (changes the wording of the bf16 choices).
    void setCpuHasBf16Instructions(bool has);

    // Stores the choices; emits languageChanged(StudioSettings::effectiveLocale(choice)),
    // cpuBf16Changed(mode) and themeChanged(theme) for those that changed.
    void accept() override;

signals:
    void languageChanged(const QString& locale);
    void cpuBf16Changed(const QString& mode);
    void themeChanged(const QString& theme);

private:
    StudioSettings m_settings;
    QComboBox* m_language;
    QLabel* m_note;
    QComboBox* m_cpuBf16;
    QLabel* m_cpuBf16Note;
    QComboBox* m_theme;
    bool m_bf16Instructions = false;
    void updateCpuBf16Note();
};
