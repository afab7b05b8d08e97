#include "failure_banner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextDocument>

FailureBanner::FailureBanner(QWidget* parent)
    : QFrame(parent),
      m_message(new QLabel(this)),
      m_show(new QPushButton(tr("Show"), this)),
      m_fix(new QPushButton(tr("Find a fix"), this)) {
    setObjectName("failureBanner");
    setFrameShape(QFrame::StyledPanel);
    m_message->setObjectName("failureBannerText");
    m_message->setTextFormat(Qt::RichText);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_show->setObjectName("failureBannerShow");
    m_show->setToolTip(tr("Select this point in the layer heatmap, its row in view"));
    m_fix->setObjectName("failureBannerFix");
    m_fix->setToolTip(tr("Search the cheapest precision plan that fixes this run"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    layout->addWidget(m_message, 1);
    layout->addWidget(m_show);
    layout->addWidget(m_fix);
    connect(m_show, &QPushButton::clicked, this, &FailureBanner::showRequested);
    connect(m_fix, &QPushButton::clicked, this, &FailureBanner::findFixRequested);
    hide();
}

QString FailureBanner::stageName(int step, bool vae) {
    if (step >= 0) return tr("step %1").arg(step);
    return vae ? tr("VAE decode") : tr("text encoding");
}

void FailureBanner::showFailure(const Failure& f) {
    m_failure = f;
    //: The Run tab's failure banner: %1 the failing point, %2 where (step 0, VAE decode),
    //: %3 the value that appeared (+Inf and its count), %4 the component.
    m_message->setText(tr("<b style='color:#c00000'>The run failed.</b> First failing point: "
                          "<b>%1</b> at %2: %3, in the %4.")
                           .arg(f.point.toHtmlEscaped(), f.stage.toHtmlEscaped(),
                                f.value.toHtmlEscaped(), f.component.toHtmlEscaped()));
    m_show->setVisible(f.layer);
    show();
}

void FailureBanner::showVerdict(const QString& verdict) {
    m_failure = Failure();
    m_message->setText(tr("<b style='color:#c00000'>The run failed:</b> %1. No NaN or Inf "
                          "appeared on the way.")
                           .arg(verdict.toHtmlEscaped()));
    m_show->setVisible(false);
    show();
}

void FailureBanner::clear() {
    m_failure = Failure();
    m_message->clear();
    hide();
}

QString FailureBanner::text() const {
    QTextDocument doc;
    doc.setHtml(m_message->text());
    return doc.toPlainText();
}
