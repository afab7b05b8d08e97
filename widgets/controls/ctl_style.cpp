#include "ctl_style.h"

#include <QApplication>
#include <QColor>
#include <QEvent>
#include <QLabel>
#include <QPalette>
#include <QWidget>

namespace ctl {

namespace {

class PaletteHook : public QObject {
public:
    PaletteHook(QWidget* w, std::function<void()> f) : QObject(w), m_widget(w), m_f(std::move(f)) {}
    bool eventFilter(QObject* watched, QEvent* e) override {
        if (watched == m_widget && e->type() == QEvent::PaletteChange) m_f();
        return false;
    }

private:
    QWidget* m_widget;
    std::function<void()> m_f;
};

}  // namespace

QColor subtleColor(const QPalette& p) {
    const QColor text = p.color(QPalette::WindowText);
    const QColor back = p.color(QPalette::Window);
    const auto mix = [](int a, int b) { return (a * 65 + b * 35) / 100; };
    return QColor(mix(text.red(), back.red()), mix(text.green(), back.green()),
                  mix(text.blue(), back.blue()));
}

namespace {

// The palette `w` would have without its own colours: its parent's, or the application's.
QPalette inherited(const QWidget* w) {
    return w->parentWidget() ? w->parentWidget()->palette() : QApplication::palette(w);
}

void applySubtle(QWidget* w) {
    const QColor c = subtleColor(inherited(w));
    QPalette p = w->palette();
    if (p.color(QPalette::WindowText) == c && p.color(QPalette::Text) == c) return;
    p.setColor(QPalette::WindowText, c);
    p.setColor(QPalette::Text, c);
    w->setPalette(p);
}

}  // namespace

void setSubtle(QWidget* w) {
    applySubtle(w);
    // Its own text colours stop it following the theme: recompute them when it changes (the
    // second PaletteChange, from setPalette, finds them equal and stops).
    onPaletteChange(w, [w] { applySubtle(w); });
}

void onPaletteChange(QWidget* w, std::function<void()> repaint) {
    w->installEventFilter(new PaletteHook(w, std::move(repaint)));
}

void setShownText(QLabel* label, const QString& text) {
    label->setText(text);
    label->setVisible(!text.isEmpty());
}

QString shownText(const QLabel* label) {
    return label->isHidden() ? QString() : label->text();
}

QLabel* errorLabel(const char* objectName, QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setObjectName(objectName);
    label->setWordWrap(true);
    label->setStyleSheet("color: #b00020;");
    label->hide();
    return label;
}

}  // namespace ctl
