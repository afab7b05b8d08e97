// The VAE measures of the demo's trainer and evaluate-demo: held-out PSNR and how many
// reconstructions still read back as the scene that was drawn (the ceiling of the model's rates).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "demo/base_checkpoint.h"
#include "demo/dataset.h"
#include "demo/prompt_following.h"
#include "demo/train_models.h"
#include "families/vae/autoencoder_kl.h"
#include "runtime/demo_location.h"
#include "test_util.h"

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

TEST(DemoVaeStatistics, TheVaeAloneIsReadBackSceneByScene) {
    AutoencoderKL vae = demo::loadFolderVae(findDemoModel());
    const demo::PromptFollowing t = demo::vaeReadBack(*vae, 40, demo::kHeldOutSeedBase + 5);
    EXPECT_GE(t.scenes, 40);
    EXPECT_EQ(t.found, t.scenes);  // the shipped VAE loses no object
    EXPECT_GE(demo::PromptFollowing::rate(t.colour, t.scenes), 0.9);
    EXPECT_GE(demo::PromptFollowing::rate(t.position, t.positionStated), 0.9);
    EXPECT_GE(t.shapeRate(), 0.85);
}

TEST(DemoVaeStatistics, EvaluateDemoReportsItsVaeAloneBesideThePrompts) {
    int status = -1;
    const std::string out =
        test::runCli("evaluate-demo --count 2 --steps 2 --templates held-out --json", status, true);
    ASSERT_EQ(status, 0) << out;
    const auto j = nlohmann::json::parse(out);
    EXPECT_EQ(j.at("held_out").at("scenes").get<int>(), 2);
    EXPECT_GE(j.at("vae_alone").at("scenes").get<int>(), 2);
    EXPECT_GE(j.at("vae_alone").at("object_drawn").at("rate").get<double>(), 0.5);
}
