// Compared runs in the studio are titled by what differs between their plans (bf16 vs fp16, one
// module at a time, remedies, runs from the history); the whole plan stays with each final image.
#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QLabel>
#include <QTest>

#include "compare_view.h"
#include "image_view.h"
#include "main_window.h"
#include "run_history.h"
#include "step_plot.h"
#include "studio.h"
#include "studio_test_fixture.h"

namespace {

class StudioTitles : public StudioFixture {
protected:
};

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

}  // namespace

TEST_F(StudioTitles, NameWhatDiffersAndKeepTheWholePlan) {
    auto w = openDemo();
    w->studio().compareBf16VsFp16();
    const auto& v = w->views();
    EXPECT_EQ(v.compare->runLabels(), QStringList({"bf16", "fp16"}));
    EXPECT_EQ(v.compare->stepPlot()->runLabels(), QStringList({"bf16", "fp16"}));
    QStringList legend;
    QCustomPlot* plot = v.compare->stepPlot()->plot();
    for (int i = 0; i < plot->legend->itemCount(); ++i)
        if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i)))
            legend << item->plottable()->name();
    EXPECT_TRUE(legend.startsWith("bf16")) << legend.join(" | ").toStdString();
    EXPECT_TRUE(legend.contains("fp16")) << legend.join(" | ").toStdString();
    for (const auto& c : w->studio().model()->components)
        EXPECT_FALSE(legend.join(" ").contains(qs(c.name)));
    // The whole plan: after the title of each final image, and as the strip title's tooltip.
    const QString fp16Plan = v.compare->imageView(1)->title().section(": ", 1);
    EXPECT_TRUE(v.compare->imageView(1)->title().startsWith("fp16: "));
    for (const auto& c : w->studio().model()->components)
        EXPECT_TRUE(fp16Plan.contains(qs(c.name) + "=fp16")) << fp16Plan.toStdString();
    QStringList tips;
    for (auto* l : v.compare->findChildren<QLabel*>())
        if (l->text().contains("<b>fp16</b>")) tips << l->toolTip();
    EXPECT_EQ(tips, QStringList({fp16Plan}));
    ASSERT_TRUE(waitIdle(*w));

    // One component at a time: each run named by its component alone.
    QStringList expected{"stored dtypes"};
    for (const auto& c : w->studio().model()->components)
        if (expected.size() < 4) expected << qs(c.name) + " fp16";
    w->studio().compareOneModuleAtATime();
    EXPECT_EQ(v.compare->runLabels(), expected);
    EXPECT_EQ(v.compare->stepPlot()->runLabels(), expected);
    ASSERT_TRUE(waitIdle(*w));

    // Remedies: the option that differs, with the format of the module it applies to.
    const QString m = qs(w->studio().model()->components.back().name);
    w->studio().compareRemedies({m + "=fp16," + m + "=clamp", m + "=fp16," + m + "=scale:4"});
    EXPECT_EQ(v.compare->runLabels(), QStringList({m + " fp16 + clamp", m + " fp16 + scale:4"}));
    ASSERT_TRUE(waitIdle(*w));

    // Runs from the history: the same titles, with their numbers there.
    qint64 bf16 = -1, fp16 = -1;
    for (const auto& r : RunHistory(m_dir.filePath("history")).list()) {
        if (r.plan.contains("=bf16") && !r.plan.contains("=fp16")) bf16 = r.id;
        if (r.plan.contains("=fp16") && !r.plan.contains("=bf16") && r.plan.count('=') > 2)
            fp16 = r.id;
    }
    ASSERT_GE(bf16, 0);
    ASSERT_GE(fp16, 0);
    w->studio().compareHistoryRuns({bf16, fp16});
    EXPECT_EQ(v.compare->runLabels(), QStringList({QString("bf16 (run %1)").arg(bf16),
                                                   QString("fp16 (run %1)").arg(fp16)}));
}
