#include "ctl_seed_edit.h"

#include <QHBoxLayout>
#include <QLineEdit>
#include <QRandomGenerator>
#include <QToolButton>
#include <QValidator>

namespace {

// Digits only, up to 2^64 - 1. An emptied field is given back the value it still holds when it
// loses focus (QLineEdit calls fixup() then).
class SeedValidator : public QValidator {
public:
    SeedValidator(const quint64* value, QObject* parent) : QValidator(parent), m_value(value) {}
    void fixup(QString& input) const override { input = QString::number(*m_value); }
    State validate(QString& input, int&) const override {
        if (input.isEmpty()) return Intermediate;
        for (QChar c : input)
            if (!c.isDigit()) return Invalid;
        bool ok = false;
        input.toULongLong(&ok);
        return ok ? Acceptable : Invalid;
    }

private:
    const quint64* m_value;
};

}  // namespace

SeedEdit::SeedEdit(QWidget* parent)
    : QWidget(parent), m_edit(new QLineEdit(this)), m_random(new QToolButton(this)) {
    m_edit->setObjectName("seedEdit");
    m_edit->setValidator(new SeedValidator(&m_value, m_edit));
    m_edit->setText(QStringLiteral("0"));
    m_edit->setToolTip(
        tr("Seed of the initial noise, 0 to 18446744073709551615. The same seed "
           "gives the same image on any device."));
    m_random->setObjectName("seedRandom");
    m_random->setText(tr("Random"));
    m_random->setToolTip(tr("Draw a new random seed"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_random);
    connect(m_random, &QToolButton::clicked, this, &SeedEdit::randomize);
    connect(m_edit, &QLineEdit::textChanged, this, [this](const QString& text) {
        bool ok = false;
        const quint64 v = text.toULongLong(&ok);
        if (ok && v != m_value) {
            m_value = v;
            emit valueChanged(v);
        }
    });
}

quint64 SeedEdit::value() const {
    return m_value;
}

void SeedEdit::setValue(quint64 seed) {
    m_edit->setText(QString::number(seed));
}

void SeedEdit::randomize() {
    setValue(QRandomGenerator::global()->generate64());
}
