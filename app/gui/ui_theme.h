#pragma once
// The studio's light or dark look. The setting (StudioSettings::kThemeKey: "system", "light",
// "dark") picks it; "system" asks the desktop, first source that answers wins:
//   1. the freedesktop portal, org.freedesktop.appearance color-scheme (GNOME 42+, KDE 5.24+,
//      any desktop with xdg-desktop-portal), over QtDBus when the build has it;
//   2. GTK: $GTK_THEME ending in ":dark", then gtk-application-prefer-dark-theme (or a theme
//      name ending in "-dark") in $XDG_CONFIG_HOME/gtk-3.0/settings.ini or gtk-4.0's;
//   3. Windows: AppsUseLightTheme under HKCU\...\Themes\Personalize;
//   4. the lightness of the palette the platform gave the application.
// Qt 6.4 has no QStyleHints::colorScheme (6.5), hence the sources above.
// Dark is the Fusion style with a dark palette; light is the platform's own style and palette
// when those are light, else Fusion's light palette. Widgets and plots follow through
// QEvent::PaletteChange (ctl_plot_style.h). While following the system, the theme changes with
// the portal's SettingChanged signal and with the platform's palette.
#include <QPalette>
#include <QString>
#include <optional>

class QApplication;

namespace ui_theme {

enum class Scheme { Light, Dark };

// Where "system" looks; currentSources() reads them from the environment and the application.
struct Sources {
    QString home;           // $HOME
    QString xdgConfigHome;  // $XDG_CONFIG_HOME; empty: $HOME/.config
    QString gtkTheme;       // $GTK_THEME
    bool portal = true;     // ask the freedesktop portal (the tests turn it off)
    QPalette palette;       // the platform's palette, before any theme of Halfscope's
};
Sources currentSources();

struct SystemScheme {
    Scheme scheme = Scheme::Light;
    QString source;  // "portal", "GTK_THEME", the settings.ini path, "registry" or "palette"
};

std::optional<Scheme> portalScheme();  // nullopt: no portal, no answer or "no preference"
// `source`, if given, gets "GTK_THEME" or the settings.ini that answered.
std::optional<Scheme> gtkScheme(const Sources& s, QString* source = nullptr);
std::optional<Scheme> windowsScheme();  // nullopt off Windows
Scheme paletteScheme(const QPalette& p);
SystemScheme systemScheme(const Sources& s);

// "light" and "dark" say it; anything else ("system") asks systemScheme().
SystemScheme resolve(const QString& setting, const Sources& s);

// The dark palette of the dark theme (text on window at least 4.5:1).
QPalette darkPalette();

// Sets the application's style and palette for `scheme`. `platform` is the palette the platform
// gave the application (Sources::palette), `platformStyle` its style's name.
void apply(Scheme scheme, const QPalette& platform, const QString& platformStyle);

// At start-up, after QApplication and before any window: remembers the platform's style and
// palette, applies the stored setting, and follows the system while the setting is "system".
void install(QApplication& app);
// A new setting (the settings dialog's themeChanged): applied now.
void applySetting(const QString& setting);
// What is applied now and why ("dark (portal)"), for the log.
SystemScheme current();

}  // namespace ui_theme
