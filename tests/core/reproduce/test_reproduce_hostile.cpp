// Hostile metadata: a 100 MB text chunk, a cut-short file, malformed UTF-8, other formats, a
// graph with a cycle, a link to nowhere, 10^6 nodes, deep nesting, an infotext of 10^5 fields.
// Each is a clear error, within a second.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "../test_util.h"
#include "reproduce_fixture.h"

namespace hs::test {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

json ksamplerGraph() {
    return json::parse(R"({
      "1": {"class_type": "KSampler", "inputs": {"seed": 1, "steps": 2, "cfg": 3,
            "sampler_name": "euler", "scheduler": "normal", "denoise": 1, "model": ["2", 0],
            "positive": ["3", 0], "negative": ["3", 0], "latent_image": ["4", 0]}},
      "2": {"class_type": "CheckpointLoaderSimple", "inputs": {"ckpt_name": "m.safetensors"}},
      "3": {"class_type": "CLIPTextEncode", "inputs": {"text": "x", "clip": ["2", 1]}},
      "4": {"class_type": "EmptyLatentImage", "inputs": {"width": 64, "height": 64,
            "batch_size": 1}}})");
}

}  // namespace

class ReproduceHostile : public TempDirTest {};

TEST_F(ReproduceHostile, HugeTextChunkIsRefusedBeforeItIsRead) {
    // A real 100 MB tEXt chunk (a sparse file: the chunk's bytes are never read).
    const std::string file = path("huge.png");
    const std::string head = pngWith("");
    const size_t afterIhdr = 33;
    const uint32_t n = 100u << 20;
    std::string chunkHead{char(n >> 24), char(n >> 16), char(n >> 8), char(n)};
    chunkHead += "tEXtprompt";
    writeBytes(file, head.substr(0, afterIhdr) + chunkHead);
    std::filesystem::resize_file(file, afterIhdr + 8 + n + 4);
    {
        std::ofstream out(file, std::ios::binary | std::ios::app);
        out << head.substr(afterIhdr);
    }
    const auto t0 = Clock::now();
    expectFileError([&] { readReproduceSettings(file); }, file,
                    "a text chunk (tEXt) of 100 MB, over the cap of 8 MB on one text chunk");
    EXPECT_LT(secondsSince(t0), 1.0);
}

TEST_F(ReproduceHostile, CutShortFilesAndOtherFormatsAreNamed) {
    const std::string png = pngWith(
        pngChunk("tEXt", std::string("parameters") + '\0' + "a\nSteps: 1, Seed: 2, CFG scale: 3"));
    writeBytes(path("cut.png"), png.substr(0, png.size() - 20));
    expectFileError([&] { readReproduceSettings(path("cut.png")); }, path("cut.png"),
                    "the file is cut short");
    writeBytes(path("whole.png"), png);
    EXPECT_EQ(readReproduceSettings(path("whole.png")).seed, json(2));
    writeBytes(path("a.jpg"), std::string("\xFF\xD8\xFF\xE0\0\x10JFIF", 10));
    expectFileError([&] { readReproduceSettings(path("a.jpg")); }, path("a.jpg"),
                    "a JPEG image: reading how an image was made from JPEG metadata is not "
                    "supported");
    writeBytes(path("a.webp"), std::string("RIFF\x10\0\0\0WEBPVP8 ", 16));
    expectFileError([&] { readReproduceSettings(path("a.webp")); }, path("a.webp"), "a WebP image");
    writeBytes(path("plain.png"), pngWith(""));
    expectFileError([&] { readReproduceSettings(path("plain.png")); }, path("plain.png"),
                    "no metadata on how the image was made");
}

TEST_F(ReproduceHostile, MalformedUtf8IsRefused) {
    // iTXt: keyword, compression flag and method, language, translated keyword, then UTF-8.
    const std::string itxt = std::string("parameters\0\0\0\0\0", 15) + "a \xC3\x28 b\nSteps: 1";
    writeBytes(path("bad.png"), pngWith(pngChunk("iTXt", itxt)));
    expectFileError([&] { readReproduceSettings(path("bad.png")); }, path("bad.png"),
                    "the 'parameters' text chunk is not valid UTF-8 (byte 2 of its text)");
    EXPECT_EQ(firstInvalidUtf8("ok \xE2\x82\xAC"), std::string::npos);
    EXPECT_EQ(firstInvalidUtf8("\xED\xA0\x80"), 0u);    // a surrogate
    EXPECT_EQ(firstInvalidUtf8("ab\xF0\x9F\x98"), 2u);  // cut short
    // Malformed UTF-8 inside a graph's strings (a tEXt chunk is Latin-1, so only a caller
    // handing text over can do this): the JSON parser refuses it.
    EXPECT_HAS(messageOf([] { ComfyGraph::fromApiJson("{\"1\": {\"class_type\": \"\xFF\"}}"); }),
               "parse error");
}

TEST(ReproduceGraphs, CyclesMissingNodesAndSizeAreClearErrors) {
    json g = ksamplerGraph();
    g["3"]["inputs"]["clip"] = json::array({"1", 0});  // 1 -> 3 -> 1
    EXPECT_HAS(messageOf([&] { settingsOfGraph(g); }), "the graph has a cycle");
    g = ksamplerGraph();
    g["1"]["inputs"]["model"] = json::array({"99", 0});
    EXPECT_HAS(messageOf([&] { settingsOfGraph(g); }),
               "node 1 (KSampler): input 'model' links to node 99, which is not in the graph");

    // 10^6 nodes: refused on the streaming pass, before a tree is built.
    std::string huge = "{";
    for (int i = 0; i < 1000000; ++i)
        huge += (i ? ",\"" : "\"") + std::to_string(i) + "\":{\"class_type\":\"A\"}";
    huge += "}";
    auto t0 = Clock::now();
    EXPECT_HAS(messageOf([&] { ComfyGraph::fromApiJson(huge); }), "more than 20000 nodes");
    EXPECT_LT(secondsSince(t0), 1.0);

    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    EXPECT_HAS(messageOf([&] { ComfyGraph::fromApiJson(deep); }), "nested deeper than 64");

    // A chain of 15000 pass-through conditioning nodes: checked without recursion, then the
    // walk stops at its cap.
    g = ksamplerGraph();
    for (int i = 0; i < 15000; ++i)
        g[std::to_string(100 + i)] = {
            {"class_type", "ConditioningSetTimestepRange"},
            {"inputs", {{"conditioning", json::array({i ? std::to_string(99 + i) : "3", 0})}}}};
    g["1"]["inputs"]["positive"] = json::array({"15099", 0});
    t0 = Clock::now();
    EXPECT_HAS(messageOf([&] { settingsOfGraph(g); }), "nodes chained before");
    EXPECT_LT(secondsSince(t0), 1.0);
}

TEST(ReproduceGraphs, InfotextOfAHundredThousandFieldsIsRefused) {
    std::string text = "a prompt\n";
    for (int i = 0; i < 100000; ++i)
        text += "Key" + std::to_string(i) + ": " + std::to_string(i) + ", ";
    const auto t0 = Clock::now();
    EXPECT_HAS(messageOf([&] { parseInfotext(text); }), "more than 4096 fields (the cap)");
    EXPECT_LT(secondsSince(t0), 1.0);
    // A long line of no fields at all: still linear.
    const std::string noFields = "p\n" + std::string(2000000, 'a');
    EXPECT_EQ(parseInfotext(noFields).fields.size(), 0u);
}

}  // namespace hs::test
