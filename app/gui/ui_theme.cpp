#include "ui_theme.h"

#include <QApplication>
#include <QDir>
#include <QEvent>
#include <QFile>
#include <QLoggingCategory>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>
#include <QTextStream>

#include "studio_settings.h"

#ifdef HALFSCOPE_HAVE_QTDBUS
#include <QDBusConnection>
#include <QDBusError>
#include <QDBusMessage>
#include <QDBusVariant>
#endif

namespace ui_theme {

namespace {

// QT_LOGGING_RULES="halfscope.theme.debug=true" shows which source decided the theme.
Q_LOGGING_CATEGORY(lcTheme, "halfscope.theme", QtWarningMsg)

const char* kPortalService = "org.freedesktop.portal.Desktop";
const char* kPortalPath = "/org/freedesktop/portal/desktop";
const char* kPortalSettings = "org.freedesktop.portal.Settings";

struct State {
    bool installed = false;      // the platform's style and palette are remembered
    bool following = false;      // the Follower listens
    bool applying = false;       // our own ApplicationPaletteChange is not the system's
    bool platformShown = false;  // the application shows the platform's own palette
    QString setting = QStringLiteral("system");
    QPalette platformPalette;
    QString platformStyle;
    SystemScheme applied;
};

State& state() {
    static State s;
    return s;
}

bool truthy(const QString& v) {
    const QString t = v.trimmed().toLower();
    return t == "1" || t == "true" || t == "yes";
}

// gtk-application-prefer-dark-theme, or a theme name ending in "-dark", in a GTK settings.ini;
// nullopt when the file has neither.
std::optional<Scheme> gtkIniScheme(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return std::nullopt;
    std::optional<bool> preferDark;
    std::optional<bool> darkThemeName;
    QTextStream in(&f);
    bool inSettings = false;
    while (!in.atEnd()) {
        const QString line = in.readLine().trimmed();
        if (line.startsWith('[')) {
            inSettings = line.compare("[Settings]", Qt::CaseInsensitive) == 0;
            continue;
        }
        const int eq = line.indexOf('=');
        if (!inSettings || eq < 0 || line.startsWith('#') || line.startsWith(';')) continue;
        const QString key = line.left(eq).trimmed();
        QString value = line.mid(eq + 1).trimmed();
        if (key == "gtk-application-prefer-dark-theme") preferDark = truthy(value);
        if (key == "gtk-theme-name") darkThemeName = value.remove('"').toLower().endsWith("-dark");
    }
    if (!preferDark && !darkThemeName) return std::nullopt;
    return preferDark.value_or(false) || darkThemeName.value_or(false) ? Scheme::Dark
                                                                       : Scheme::Light;
}

QString configHome(const Sources& s) {
    return s.xdgConfigHome.isEmpty() ? s.home + "/.config" : s.xdgConfigHome;
}

QString name(Scheme s) {
    return s == Scheme::Dark ? QStringLiteral("dark") : QStringLiteral("light");
}

void reapply() {
    State& st = state();
    st.applied = resolve(st.setting, currentSources());
    apply(st.applied.scheme, st.platformPalette, st.platformStyle);
    qCDebug(lcTheme, "theme %s: %s (%s)", qPrintable(st.setting),
            qPrintable(name(st.applied.scheme)), qPrintable(st.applied.source));
}

// Follows the system while the setting is "system": the portal's SettingChanged, and a new
// palette from the platform.
class Follower : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    bool eventFilter(QObject* watched, QEvent* e) override {
        State& st = state();
        if (watched == qApp && e->type() == QEvent::ApplicationPaletteChange && !st.applying &&
            st.setting == "system") {
            // A palette of our own is set explicitly and hides the platform's changes; while the
            // platform's is shown, a change of it is the desktop's new look.
            if (st.platformShown) st.platformPalette = QApplication::palette();
            reapply();
        }
        return false;
    }
public Q_SLOTS:
#ifdef HALFSCOPE_HAVE_QTDBUS
    void portalSettingChanged(const QString& ns, const QString& key, const QDBusVariant&) {
        if (ns == "org.freedesktop.appearance" && key == "color-scheme" &&
            state().setting == "system")
            reapply();
    }
#endif
};

}  // namespace

Sources currentSources() {
    Sources s;
    s.home = qEnvironmentVariable("HOME", QDir::homePath());
    s.xdgConfigHome = qEnvironmentVariable("XDG_CONFIG_HOME");
    s.gtkTheme = qEnvironmentVariable("GTK_THEME");
    s.palette = state().installed ? state().platformPalette : QApplication::palette();
    return s;
}

std::optional<Scheme> portalScheme() {
#ifdef HALFSCOPE_HAVE_QTDBUS
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected()) return std::nullopt;
    QDBusMessage m = QDBusMessage::createMethodCall(kPortalService, kPortalPath, kPortalSettings,
                                                    QStringLiteral("Read"));
    m << QStringLiteral("org.freedesktop.appearance") << QStringLiteral("color-scheme");
    // A desktop without the portal answers with an error at once; a hung one costs 400 ms.
    const QDBusMessage reply = bus.call(m, QDBus::Block, 400);
    if (reply.type() != QDBusMessage::ReplyMessage || reply.arguments().isEmpty())
        return std::nullopt;
    QVariant v = reply.arguments().first();
    while (v.userType() == qMetaTypeId<QDBusVariant>())  // Read wraps the value twice
        v = qvariant_cast<QDBusVariant>(v).variant();
    bool ok = false;
    const uint value = v.toUInt(&ok);  // 0 no preference, 1 prefer dark, 2 prefer light
    if (!ok || value == 0 || value > 2) return std::nullopt;
    return value == 1 ? Scheme::Dark : Scheme::Light;
#else
    return std::nullopt;
#endif
}

std::optional<Scheme> gtkScheme(const Sources& s, QString* source) {
    const QString env = s.gtkTheme.trimmed().toLower();
    if (env.endsWith(":dark") || env.endsWith("-dark")) {
        if (source) *source = QStringLiteral("GTK_THEME");
        return Scheme::Dark;
    }
    for (const char* dir : {"gtk-3.0", "gtk-4.0"}) {
        const QString path = configHome(s) + "/" + dir + "/settings.ini";
        if (auto v = gtkIniScheme(path)) {
            if (source) *source = path;
            return v;
        }
    }
    return std::nullopt;
}

std::optional<Scheme> windowsScheme() {
#ifdef Q_OS_WIN
    const QSettings reg(
        "HKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\CurrentVersion\\Themes\\Personalize",
        QSettings::NativeFormat);
    const QVariant v = reg.value("AppsUseLightTheme");
    if (!v.isValid()) return std::nullopt;
    return v.toInt() == 0 ? Scheme::Dark : Scheme::Light;
#else
    return std::nullopt;
#endif
}

Scheme paletteScheme(const QPalette& p) {
    return p.color(QPalette::Window).lightnessF() < p.color(QPalette::WindowText).lightnessF()
               ? Scheme::Dark
               : Scheme::Light;
}

SystemScheme systemScheme(const Sources& s) {
    if (s.portal)
        if (auto v = portalScheme()) return {*v, QStringLiteral("portal")};
    if (auto v = windowsScheme()) return {*v, QStringLiteral("registry")};
    QString source;
    if (auto v = gtkScheme(s, &source)) return {*v, source};
    return {paletteScheme(s.palette), QStringLiteral("palette")};
}

SystemScheme resolve(const QString& setting, const Sources& s) {
    if (setting == "dark") return {Scheme::Dark, QStringLiteral("setting")};
    if (setting == "light") return {Scheme::Light, QStringLiteral("setting")};
    return systemScheme(s);
}

QPalette darkPalette() {
    const QColor window(43, 43, 46), base(30, 30, 32), text(232, 232, 232);
    const QColor button(53, 53, 57), disabled(128, 128, 132), link(110, 170, 255);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(38, 38, 41));
    p.setColor(QPalette::ToolTipBase, QColor(60, 60, 64));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(150, 150, 155));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, button);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(255, 90, 90));
    p.setColor(QPalette::Light, QColor(75, 75, 80));
    p.setColor(QPalette::Midlight, QColor(64, 64, 68));
    p.setColor(QPalette::Mid, QColor(36, 36, 38));
    p.setColor(QPalette::Dark, QColor(22, 22, 24));
    p.setColor(QPalette::Shadow, QColor(0, 0, 0));
    p.setColor(QPalette::Highlight, QColor(42, 110, 190));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, link);
    p.setColor(QPalette::LinkVisited, QColor(180, 140, 255));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Base, window);
    p.setColor(QPalette::Disabled, QPalette::Button, window);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(70, 70, 75));
    return p;
}

void apply(Scheme scheme, const QPalette& platform, const QString& platformStyle) {
    State& st = state();
    st.applying = true;
    st.platformShown = false;
    const auto useStyle = [](const QString& name) {
        if (!name.isEmpty() && QApplication::style()->name().compare(name, Qt::CaseInsensitive))
            if (QStyle* s = QStyleFactory::create(name)) QApplication::setStyle(s);
    };
    if (scheme == Scheme::Dark) {
        useStyle(QStringLiteral("Fusion"));
        QApplication::setPalette(darkPalette());
    } else if (paletteScheme(platform) == Scheme::Light) {
        useStyle(platformStyle);
        QApplication::setPalette(platform);
        st.platformShown = true;
    } else {  // a dark desktop, a light Halfscope
        useStyle(QStringLiteral("Fusion"));
        QApplication::setPalette(QApplication::style()->standardPalette());
    }
    st.applying = false;
}

void install(QApplication& app) {
    State& st = state();
    if (!st.installed) {
        st.platformStyle = app.style()->name();
        st.platformPalette = app.palette();
        st.installed = true;
    }
    if (!st.following) {
        st.following = true;
        auto* follower = new Follower(&app);
        app.installEventFilter(follower);
#ifdef HALFSCOPE_HAVE_QTDBUS
        QDBusConnection bus = QDBusConnection::sessionBus();
        if (bus.isConnected() &&
            !bus.connect(kPortalService, kPortalPath, kPortalSettings,
                         QStringLiteral("SettingChanged"), follower,
                         SLOT(portalSettingChanged(QString, QString, QDBusVariant))))
            qCWarning(lcTheme, "cannot follow the portal's color-scheme: %s",
                      qPrintable(bus.lastError().message()));
#endif
    }
    st.setting = StudioSettings().theme();
    reapply();
}

void applySetting(const QString& setting) {
    State& st = state();
    if (!st.installed) {
        st.platformStyle = QApplication::style()->name();
        st.platformPalette = QApplication::palette();
        st.installed = true;
    }
    st.setting = setting;
    reapply();
}

SystemScheme current() {
    return state().applied;
}

}  // namespace ui_theme

#include "ui_theme.moc"
