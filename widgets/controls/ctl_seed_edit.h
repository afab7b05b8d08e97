#pragma once
// A line edit for a 64-bit unsigned seed (QSpinBox stops at 2^31 - 1, the engine takes uint64),
// with a button that draws a random one.
#include <QWidget>

class QLineEdit;
class QToolButton;

class SeedEdit : public QWidget {
    Q_OBJECT
public:
    explicit SeedEdit(QWidget* parent = nullptr);
    quint64 value() const;
    void setValue(quint64 seed);
    QLineEdit* lineEdit() const { return m_edit; }
    QToolButton* randomButton() const { return m_random; }

public slots:
    void randomize();

signals:
    void valueChanged(quint64 seed);

private:
    QLineEdit* m_edit;
    QToolButton* m_random;
    quint64 m_value = 0;
};
