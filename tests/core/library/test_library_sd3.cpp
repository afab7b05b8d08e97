// Stable Diffusion 3 / 3.5 as ComfyUI users hold it: the transformer in diffusion_models, the VAE
// in vae, clip_l, clip_g and t5xxl in text_encoders. The library puts each file in the slot the
// SD3 strategy declares for its kind (a CLIP, a T5) and width (CLIP-L the narrower CLIP), whatever
// slot its layout names and whatever the order of the picks; it refuses an encoder of the wrong
// width naming the widths; and the set it makes loads and runs.
#include <gtest/gtest.h>

#include <filesystem>

#include "../flux1_fixture.h"
#include "../pipeline_fixture.h"
#include "../sd3_fixture.h"
#include "../single_file_helpers.h"
#include "../test_util.h"
#include "library/library_file_set.h"
#include "library/library_scan.h"
#include "library_tree.h"
#include "pipeline/pipeline.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

// A tiny CLIP with projection: the tiny transformer's pooled_projection_dim (48) split as SD3's
// 2048 is, CLIP-L's 768 the narrower part (18 here) and bigG's 1280 the wider (30).
void writeClipLibrarySd3(const std::string& path, int64_t projection, uint64_t seed) {
    nlohmann::json c{{"architectures", {"CLIPTextModelWithProjection"}},
                     {"model_type", "clip_text_model"},
                     {"hidden_size", 12},
                     {"intermediate_size", 24},
                     {"num_hidden_layers", 2},
                     {"num_attention_heads", 4},
                     {"projection_dim", projection},
                     {"max_position_embeddings", 77},
                     {"hidden_act", "quick_gelu"},
                     {"layer_norm_eps", 1e-5}};
    c.update(test::demoTokenIds());  // the demo tokenizer is copied beside it
    c["pad_token_id"] = c["eos_token_id"];
    test::writeWeightsFile(path, test::randomWeightsOf(c, "CLIPTextModelWithProjection", seed));
}

class LibrarySd3 : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_dir = new test::ScopedDir("library-sd3");
        const test::Sd3Files f = test::writeTinySd3(s_dir->path + "/fixture");
        const std::string m = s_dir->path + "/ComfyUI/models", enc = m + "/text_encoders";
        test::copyInto(f.dit, m + "/diffusion_models", "sd3.5-tiny.safetensors");
        test::copyInto(f.ae, m + "/vae", "ae.safetensors");
        test::copyInto(f.t5, enc, "t5xxl_tiny.safetensors");
        writeClipLibrarySd3(enc + "/clip_l.safetensors", 18, 12);
        writeClipLibrarySd3(enc + "/clip_g.safetensors", 30, 13);
        writeClipLibrarySd3(enc + "/clip_l_other.safetensors", 18, 14);
        writeClipLibrarySd3(enc + "/clip_too_wide.safetensors", 48, 15);
        nlohmann::json narrowT5 = test::tinyT5Config();
        narrowT5["d_model"] = 16;
        test::writeWeightsFile(enc + "/t5_narrow.safetensors",
                               test::randomWeightsOf(narrowT5, "T5EncoderModel", 16));
        // The tokenizers beside the encoders, where the load looks for them.
        for (const char* t : {"tokenizer", "tokenizer_2", "tokenizer_3"})
            fs::copy(fs::path(f.t5).parent_path() / t, enc + "/" + t, fs::copy_options::recursive);
        LibraryOptions o;
        o.defaultHfCache = false;
        o.comfyui = {s_dir->path + "/ComfyUI"};
        s_report = new LibraryReport(scanLibrary(o));
    }
    static void TearDownTestSuite() {
        delete s_report;
        delete s_dir;
    }
    static const LibraryEntry& entry(const std::string& name) {
        for (const auto& e : s_report->entries)
            if (e.name == name) return e;
        throw std::runtime_error("no library entry " + name);
    }
    static LibraryFileSet assemble(const std::vector<std::string>& names) {
        std::vector<LibraryEntry> picked;
        for (const auto& n : names) picked.push_back(entry(n));
        return assembleFileSet(picked);
    }
    static test::ScopedDir* s_dir;
    static LibraryReport* s_report;
};
test::ScopedDir* LibrarySd3::s_dir = nullptr;
LibraryReport* LibrarySd3::s_report = nullptr;

bool containsLibrarySd3(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

// clip_g converts as a first text encoder and the t5xxl file as a second (FLUX.1's places): SD3
// takes them second and third.
TEST_F(LibrarySd3, ComfyUisSplitSetFillsTheSlotsSd3Declares) {
    EXPECT_EQ(entry("clip_g.safetensors").slots.count("text_encoder"), 1u);
    EXPECT_EQ(entry("t5xxl_tiny.safetensors").slots.count("text_encoder_2"), 1u);
    const std::vector<std::vector<std::string>> orders{
        {"sd3.5-tiny.safetensors", "ae.safetensors", "clip_l.safetensors", "clip_g.safetensors",
         "t5xxl_tiny.safetensors"},
        {"t5xxl_tiny.safetensors", "clip_g.safetensors", "ae.safetensors", "clip_l.safetensors",
         "sd3.5-tiny.safetensors"}};
    for (const auto& order : orders) {
        const LibraryFileSet set = assemble(order);
        ASSERT_TRUE(set.complete()) << set.error << (set.missing.empty() ? "" : set.missing[0]);
        EXPECT_EQ(set.pipeline, "StableDiffusion3Pipeline");
        EXPECT_EQ(set.model, entry("sd3.5-tiny.safetensors").path);
        EXPECT_EQ(set.with.vae, entry("ae.safetensors").path);
        EXPECT_EQ(set.with.textEncoder, entry("clip_l.safetensors").path);
        EXPECT_EQ(set.with.textEncoder2, entry("clip_g.safetensors").path);
        EXPECT_EQ(set.with.textEncoder3, entry("t5xxl_tiny.safetensors").path);
        EXPECT_TRUE(set.optional.empty()) << set.optional[0];
    }

    // Without clip_g its slot is named, with the file to pick; the T5 stays the third.
    const LibraryFileSet noClipG = assemble({"sd3.5-tiny.safetensors", "ae.safetensors",
                                             "clip_l.safetensors", "t5xxl_tiny.safetensors"});
    EXPECT_TRUE(noClipG.error.empty()) << noClipG.error;
    EXPECT_EQ(noClipG.missing,
              std::vector<std::string>{"no second text encoder: pick a clip_g.safetensors"});
    EXPECT_EQ(noClipG.with.textEncoder3, entry("t5xxl_tiny.safetensors").path);
}

TEST_F(LibrarySd3, TheSetTheLibraryMakesRuns) {
    const LibraryFileSet set =
        assemble({"clip_g.safetensors", "sd3.5-tiny.safetensors", "t5xxl_tiny.safetensors",
                  "clip_l.safetensors", "ae.safetensors"});
    ASSERT_TRUE(set.complete()) << set.error;
    auto p = Pipeline::load(set.model, set.with, PrecisionPlan(), torch::Device(torch::kCPU));
    const RunRecord r = p->run(test::tinyRunConfig("a lighthouse", 3, 5.0, 16, 16, 1));
    ASSERT_EQ(r.steps.size(), 1u);
    EXPECT_FALSE(r.firstNonFinite.has_value());
    // CLIP-L + CLIP-G's 32 tokens, then T5's 256, of the joint width 32.
    EXPECT_EQ(r.textEmbedding.count, (32 + 256) * 32);

    // Given swapped, the widths alone would fill SD3's slots: the load refuses them.
    ModelFiles swapped = set.with;
    std::swap(swapped.textEncoder, swapped.textEncoder2);
    const std::string e = test::errorOf<PipelineError>(
        [&] { Pipeline::load(set.model, swapped, PrecisionPlan(), torch::Device(torch::kCPU)); });
    EXPECT_TRUE(
        containsLibrarySd3(e, "text_encoder gives a pooled vector of 30, text_encoder_2 of 18"))
        << e;
}

TEST_F(LibrarySd3, AnEncoderOfTheWrongWidthIsRefusedNamingTheWidths) {
    const std::vector<std::string> base{"sd3.5-tiny.safetensors", "ae.safetensors"};
    auto with = [&](std::vector<std::string> more) {
        more.insert(more.begin(), base.begin(), base.end());
        return assemble(more).error;
    };
    // A T5 of another width than the transformer's joint_attention_dim.
    const std::string t5 =
        with({"clip_l.safetensors", "clip_g.safetensors", "t5_narrow.safetensors"});
    EXPECT_EQ(t5,
              "t5_narrow.safetensors gives text features of width 16, sd3.5-tiny.safetensors "
              "takes 32 (joint_attention_dim): pick the T5-XXL (t5xxl_*.safetensors) made for it");
    // Two CLIP-Ls: the second is too narrow for bigG's place.
    const std::string twoL =
        with({"clip_l.safetensors", "clip_l_other.safetensors", "t5xxl_tiny.safetensors"});
    EXPECT_TRUE(
        containsLibrarySd3(twoL, "clip_l_other.safetensors gives a pooled vector of width 18"))
        << twoL;
    EXPECT_TRUE(containsLibrarySd3(twoL, "text_encoder_2 is the wider CLIP")) << twoL;
    EXPECT_TRUE(containsLibrarySd3(twoL, "clip_g.safetensors")) << twoL;
    // A CLIP whose pooled vector fills both CLIPs' part alone.
    const std::string wide = with({"clip_too_wide.safetensors", "clip_g.safetensors"});
    EXPECT_TRUE(containsLibrarySd3(wide,
                                   "clip_too_wide.safetensors gives a pooled vector of width "
                                   "48, sd3.5-tiny.safetensors takes 48"))
        << wide;
    EXPECT_TRUE(containsLibrarySd3(wide, "from two CLIPs together")) << wide;
}

}  // namespace
}  // namespace hs
