// FailureBanner: hidden until a run fails; names the point, where, the value and the component;
// Show only for a probe point; its buttons' signals.
#include <gtest/gtest.h>

#include <QPushButton>
#include <QSignalSpy>

#include "failure_banner.h"

TEST(FailureBanner, NamesTheFirstFailingPointAndOffersShowAndFindAFix) {
    QWidget window;
    auto* banner = new FailureBanner(&window);
    window.show();
    EXPECT_FALSE(banner->isVisible()) << "nothing failed yet";

    FailureBanner::Failure f;
    f.point = "transformer.transformer_blocks.1";
    f.component = "transformer";
    f.step = 0;
    f.stage = FailureBanner::stageName(0, false);
    f.value = "+Inf (0 NaN, 10 +Inf, 0 -Inf of 24,576 values)";
    f.layer = true;
    banner->showFailure(f);
    EXPECT_TRUE(banner->isVisible());
    const QString text = banner->text();
    for (const char* part :
         {"transformer.transformer_blocks.1", "step 0", "+Inf", "10 +Inf", "in the transformer"})
        EXPECT_TRUE(text.contains(part)) << part << " in " << text.toStdString();
    EXPECT_TRUE(banner->showButton()->isVisible());
    EXPECT_EQ(banner->failure().point, f.point);

    QSignalSpy show(banner, &FailureBanner::showRequested);
    QSignalSpy fix(banner, &FailureBanner::findFixRequested);
    banner->showButton()->click();
    banner->fixButton()->click();
    EXPECT_EQ(show.count(), 1);
    EXPECT_EQ(fix.count(), 1);

    // Probing off: the latents are named, there is no heatmap row to show.
    f.point = "latents";
    f.layer = false;
    banner->showFailure(f);
    EXPECT_FALSE(banner->showButton()->isVisible());
    EXPECT_TRUE(banner->fixButton()->isVisible());

    banner->showVerdict("the image is black");
    EXPECT_TRUE(banner->text().contains("the image is black"));
    EXPECT_FALSE(banner->showButton()->isVisible());
    EXPECT_TRUE(banner->failure().point.isEmpty());

    banner->clear();
    EXPECT_FALSE(banner->isVisible());
}

TEST(FailureBanner, StagesOutsideTheLoopAreNamed) {
    EXPECT_EQ(FailureBanner::stageName(3, false), "step 3");
    EXPECT_EQ(FailureBanner::stageName(-1, true), "VAE decode");
    EXPECT_EQ(FailureBanner::stageName(-1, false), "text encoding");
}
