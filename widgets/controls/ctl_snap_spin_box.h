#pragma once
// An integer spin box whose value is always a multiple of a step (image sizes: the VAE and the
// transformer's patching need multiples of 16). Typed values snap to the nearest multiple when
// editing finishes; the arrows move by one multiple.
#include <QSpinBox>

class SnapSpinBox : public QSpinBox {
    Q_OBJECT
public:
    explicit SnapSpinBox(QWidget* parent = nullptr);

    // Sets the multiple and the allowed range; min/max are moved inwards to multiples.
    void setConstraints(int multiple, int minimum, int maximum);
    int multiple() const { return m_multiple; }
    // `v` snapped to the nearest allowed multiple within the range.
    int snapped(int v) const;

protected:
    void fixup(QString& input) const override;

private:
    int m_multiple = 1;
};
