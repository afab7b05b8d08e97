#pragma once
// The failure in sight: a strip at the top of the Run tab, hidden while the run shown is fine.
// When it failed it names the first failing point (a probe point, or the latents / image when
// the layers were not recorded), where in the run (step, text encoding, VAE decode), the value
// that appeared and the component, with Show (the point in the layer heatmap) and Find a fix (the
// precision search). A black or flat image without a NaN/Inf gets the verdict and Find a fix only.
#include <QFrame>

class QLabel;
class QPushButton;

class FailureBanner : public QFrame {
    Q_OBJECT
public:
    // What the banner names, already in the studio's words.
    struct Failure {
        QString point;       // "transformer.transformer_blocks.1", or "latents" / "image"
        QString component;   // "transformer", "vae", "text_encoder"
        int step = -1;       // the sampling step, -1 outside the loop
        QString stage;       // "step 0", "VAE decode", "text encoding"
        QString value;       // "+Inf (10 of 24,576 values)"
        bool layer = false;  // a probe point: Show selects its heatmap row
    };

    explicit FailureBanner(QWidget* parent = nullptr);

    // Where in a run: "step 3" (0-based, as the records, the plot and the heatmap count), else
    // the VAE decode or the text encoding outside the loop.
    static QString stageName(int step, bool vae);

    void showFailure(const Failure& f);
    // A failed run without a non-finite value: `verdict` says what the image is.
    void showVerdict(const QString& verdict);
    void clear();  // hidden: the run shown did not fail (or runs now)

    QString text() const;                                 // plain text of the message
    const Failure& failure() const { return m_failure; }  // the last shown; empty after clear()
    QLabel* message() const { return m_message; }
    QPushButton* showButton() const { return m_show; }
    QPushButton* fixButton() const { return m_fix; }

signals:
    void showRequested();
    void findFixRequested();

private:
    QLabel* m_message;
    QPushButton* m_show;
    QPushButton* m_fix;
    Failure m_failure;
};
