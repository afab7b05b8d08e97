// The VAE measures a demo training run reports: held-out PSNR and how many reconstructions still
// read back as the shape that was drawn (the ceiling of the model's shape rate).
#include <gtest/gtest.h>

#include "demo/base_checkpoint.h"
#include "demo/train_models.h"
#include "runtime/demo_location.h"

using namespace hs;

TEST(DemoVaeStatistics, ReconstructionsOfTheShippedVaeReadBackAsTheirShapes) {
    demo::BaseCheckpoint base = demo::loadBaseCheckpoint(findDemoModel());
    demo::TrainModels m{base.tokenizer};
    m.vae = base.vae;
    m.vae->eval();
    const demo::LatentStatistics good = demo::latentStatistics(m, 1);
    EXPECT_GE(good.heldOutPsnr, 28.0);
    EXPECT_GE(good.heldOutShapes, 0.9);

    // A decoder that only draws the background (its output layer knows the mean colour, no
    // object) reconstructs no shape at all, whatever its PSNR.
    {
        torch::NoGradGuard g;
        for (auto& p : m.vae->named_parameters())
            if (p.key() == "decoder.conv_out.weight") p.value().zero_();
    }
    const demo::LatentStatistics blank = demo::latentStatistics(m, 1);
    EXPECT_LT(blank.heldOutPsnr, good.heldOutPsnr);
    EXPECT_EQ(blank.heldOutShapes, 0.0);
}
