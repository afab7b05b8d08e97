// safetensors reader and writer: round trips of every dtype, zero-copy views, a corpus of
// malformed files (each with its own message), sharded checkpoints and atomic writes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <random>

#include "io/safetensors.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace {

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeAllSafetensors(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string le64Safetensors(uint64_t n) {
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i) s[i] = char(uint8_t(n >> (8 * i)));
    return s;
}

// [u64 length][header][data]; `length` overrides the true header length.
std::string stFile(const std::string& header, const std::string& data = "",
                   std::optional<uint64_t> length = std::nullopt) {
    return le64Safetensors(length.value_or(header.size())) + header + data;
}

// Temporary files that name themselves; `name()` is the path.
class SafetensorsTest : public hs::test::TempDirTest {
protected:
    std::string put(const std::string& name, const std::string& bytes) {
        writeAllSafetensors(path(name), bytes);
        return path(name);
    }
    std::vector<std::string> tempFiles() const {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(m_dir))
            if (e.path().filename().string().find(".tmp-") != std::string::npos)
                out.push_back(e.path().string());
        return out;
    }
};

// The mapping in /proc/self/maps that contains `p`, if any: proves a view is no copy.
std::string mappingOf(const void* p) {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    const auto a = reinterpret_cast<uintptr_t>(p);
    while (std::getline(maps, line)) {
        unsigned long lo = 0, hi = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2 && a >= lo && a < hi) {
            auto slash = line.find('/');
            return slash == std::string::npos ? "[anonymous]" : line.substr(slash);
        }
    }
    return "";
}

}  // namespace

TEST_F(SafetensorsTest, RoundTripsEveryDtype) {
    torch::manual_seed(1);
    std::vector<std::pair<std::string, torch::Tensor>> ts = {
        {"f64", torch::randn({3, 5}, torch::kFloat64)},
        {"f32", torch::randn({4, 7}) * 1e5},
        {"f16", torch::randn({2, 3, 4}).to(torch::kFloat16)},
        {"bf16", (torch::randn({33}) * 1e30).to(torch::kBFloat16)},  // past fp16's range
        {"i64", torch::randint(-(1LL << 40), 1LL << 40, {6}, torch::kInt64)},
        {"i32", torch::randint(-100000, 100000, {2, 2}, torch::kInt32)},
        {"i16", torch::randint(-30000, 30000, {5}, torch::kInt16)},
        {"i8", torch::randint(-128, 127, {9}, torch::kInt8)},
        {"u8", torch::randint(0, 255, {3, 3}, torch::kUInt8)},
        {"bool", torch::rand({7}) > 0.5},
        {"scalar", torch::tensor(3.5f).reshape({})},
        {"empty", torch::zeros({0, 4})},
        {"strided", torch::arange(12, torch::kFloat32).reshape({3, 4}).t()},  // non-contiguous
    };
    const std::string p = path("all.safetensors");
    hs::writeSafetensors(p, ts, {{"format", "pt"}, {"note", "ünïcode"}});

    auto f = hs::SafetensorsFile::open(p);
    EXPECT_EQ(f->tensors().size(), ts.size());
    EXPECT_EQ(f->metadata().at("format"), "pt");
    EXPECT_EQ(f->metadata().at("note"), "ünïcode");
    for (const auto& [name, t] : ts) {
        SCOPED_TRACE(name);
        auto r = f->tensor(name);
        EXPECT_EQ(r.scalar_type(), t.scalar_type());  // bf16/fp16 kept as stored
        EXPECT_EQ(r.sizes(), t.sizes());
        EXPECT_TRUE(torch::equal(r, t.contiguous()));
    }
    EXPECT_EQ(stDTypeName(f->find("bf16")->dtype), "BF16");
    EXPECT_EQ(stDTypeName(f->find("bool")->dtype), "BOOL");

    // Header padded with spaces so the data area starts 8-byte aligned; offsets follow names.
    const std::string bytes = readAll(p);
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | uint8_t(bytes[i]);
    EXPECT_EQ((8 + n) % 8, 0u);
    EXPECT_EQ(bytes[8], '{');
    std::vector<std::string> names;
    for (const auto& t : f->tensors()) names.push_back(t.name);  // sorted by offset
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

TEST_F(SafetensorsTest, TensorsAreViewsIntoTheMapping) {
    const std::string p = path("v.safetensors");
    hs::writeSafetensors(p, {{"w", torch::arange(1024, torch::kFloat32)}});
    auto f = hs::SafetensorsFile::open(p);
    auto a = f->tensor("w");
    auto b = f->tensor("w");
    EXPECT_EQ(a.data_ptr(), b.data_ptr());                          // no copy per request
    EXPECT_EQ(mappingOf(a.data_ptr()), fs::canonical(p).string());  // the file's own pages

    // The view keeps the mapping alive after the last owner of the file is gone.
    std::weak_ptr<hs::SafetensorsFile> weak = f;
    f.reset();
    b.reset();
    EXPECT_FALSE(weak.expired());
    EXPECT_EQ(a[1023].item<float>(), 1023.f);
    a.reset();
    EXPECT_TRUE(weak.expired());
}

TEST_F(SafetensorsTest, MisalignedTensorIsCopied) {
    // 8 + 69 header bytes: the data area starts at an odd offset, so F32 data is misaligned.
    std::string header = R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    header.append(69 - header.size(), ' ');
    float vals[2] = {1.5f, -2.25f};
    const std::string p = put("mis.safetensors", stFile(header, std::string((char*)vals, 8)));
    auto f = hs::SafetensorsFile::open(p);
    auto t = f->tensor("x");
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % 4, 0u);
    EXPECT_NE(mappingOf(t.data_ptr()), fs::canonical(p).string());
    EXPECT_FLOAT_EQ(t[0].item<float>(), 1.5f);
    EXPECT_FLOAT_EQ(t[1].item<float>(), -2.25f);
}

TEST_F(SafetensorsTest, EmptyHeaderAndEmptyTensorsAreValid) {
    auto f = hs::SafetensorsFile::open(put("e.safetensors", stFile("{}")));
    EXPECT_TRUE(f->tensors().empty());
    const std::string h =
        R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},"b":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})";
    auto g = hs::SafetensorsFile::open(put("z.safetensors", stFile(h, "ab")));
    EXPECT_EQ(g->tensor("a").numel(), 0);
    EXPECT_EQ(g->tensor("b")[1].item<uint8_t>(), 'b');
}

// Each malformed file, the message it must produce. Valid framing helpers keep every case
// about exactly one defect.
TEST_F(SafetensorsTest, MalformedCorpus) {
    const std::string f32x2 = R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
    const std::string eight(8, '\0');
    struct Case {
        const char* name;
        std::string bytes;
        const char* message;
    };
    auto entry = [](const std::string& body) { return "{\"t\":" + body + "}"; };
    // The tensor "t" with these dtype, shape and data_offsets (JSON values), over 8 data bytes.
    auto tensor = [&](const std::string& dtype, const std::string& shape,
                      const std::string& offsets) {
        return stFile(entry(R"({"dtype":)" + dtype + R"(,"shape":)" + shape +
                            R"(,"data_offsets":)" + offsets + "}"),
                      eight);
    };
    const std::vector<Case> cases = {
        {"empty file", "", "shorter than 8 bytes"},
        {"five bytes", std::string("\x05\0\0\0\0", 5), "shorter than 8 bytes"},
        {"zero header length", stFile("", "", 0), "header length is 0"},
        {"huge header length", stFile("{}", "", 1ull << 40), "exceeds the limit"},
        {"lying header length", stFile("{}", "", 100), "runs past the end of the file"},
        {"truncated header", stFile(entry(f32x2)).substr(0, 30), "runs past the end of the file"},
        {"bad json", stFile(R"({"t": {"dtype": )"), "not valid JSON"},
        {"invalid utf-8", stFile("{\"\xff\": 1}"), "not valid UTF-8"},
        {"overlong utf-8", stFile("{\"\xc0\xaf\": 1}"), "not valid UTF-8"},
        {"non-object header", stFile("[1, 2]"), "not a JSON object"},
        {"leading whitespace", stFile(" {}"), "must start with '{'"},
        {"entry not an object", stFile(entry("5")), "entry is not a JSON object"},
        {"missing dtype", stFile(entry(R"({"shape":[2],"data_offsets":[0,8]})"), eight),
         "missing \"dtype\""},
        {"dtype not a string", tensor("4", "[2]", "[0,8]"), "\"dtype\" must be a string"},
        {"unknown dtype", tensor(R"("Q4")", "[2]", "[0,8]"), "unknown dtype 'Q4'"},
        {"missing shape", stFile(entry(R"({"dtype":"F32","data_offsets":[0,8]})"), eight),
         "missing \"shape\""},
        {"shape not a list", tensor(R"("F32")", "2", "[0,8]"), "\"shape\" must be a list"},
        {"negative dim", tensor(R"("F32")", "[-2]", "[0,8]"), "is negative"},
        {"fractional dim", tensor(R"("F32")", "[1.5]", "[0,8]"), "is not a non-negative integer"},
        {"string dim", tensor(R"("F32")", R"(["2"])", "[0,8]"), "is not a non-negative integer"},
        {"huge shape", tensor(R"("F32")", "[4294967296,4294967296]", "[0,8]"), "overflows"},
        {"elements times size", tensor(R"("F64")", "[2305843009213693952]", "[0,8]"), "overflows"},
        {"dim past int64",
         stFile(entry(R"({"dtype":"U8","shape":[18446744073709551615,0],"data_offsets":[0,0]})")),
         "overflows"},
        {"missing data_offsets", stFile(entry(R"({"dtype":"F32","shape":[2]})"), eight),
         "missing \"data_offsets\""},
        {"three offsets", tensor(R"("F32")", "[2]", "[0,4,8]"),
         "list of two non-negative integers"},
        {"negative offset", tensor(R"("F32")", "[2]", "[-8,0]"),
         "list of two non-negative integers"},
        {"begin after end", tensor(R"("F32")", "[1]", "[8,4]"), "begin 8 > end 4"},
        {"wrong byte span", tensor(R"("F32")", "[4]", "[0,8]"), "needs 16"},
        {"offsets past end", stFile(entry(f32x2), "1234"), "run past the end of the data area"},
        {"overlap",
         stFile(R"({"a":)" + f32x2 + R"(,"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                eight + "1234"),
         "overlap"},
        {"gap", stFile(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", eight),
         "gap of 4 bytes"},
        {"trailing bytes", stFile(entry(f32x2), eight + "xyz"), "3 trailing bytes"},
        {"metadata not an object", stFile(R"({"__metadata__":[1]})"),
         "\"__metadata__\" must be an object of strings"},
        {"metadata number", stFile(R"({"__metadata__":{"k":1}})"), "value for 'k' is not a string"},
        {"duplicate tensor", stFile(R"({"t":)" + f32x2 + R"(,"t":)" + f32x2 + "}", eight),
         "key 't' more than once"},
        {"duplicate field",
         stFile(entry(R"({"dtype":"F32","dtype":"F16","shape":[2],"data_offsets":[0,8]})"), eight),
         "key 'dtype' more than once"},
        {"nested too deep",
         stFile(entry(R"({"dtype":"F32","shape":[)" + std::string(5000, '[') +
                      std::string(5000, ']') + R"(],"data_offsets":[0,8]})"),
                eight),
         "nested deeper than 64 levels"},
    };
    ASSERT_GE(cases.size(), 20u);
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const std::string p = put("bad.safetensors", c.bytes);
        hs::test::expectFileError([&] { hs::SafetensorsFile::open(p); }, p, c.message);
        // The pure parser says the same without a path.
        try {
            hs::parseStHeader(reinterpret_cast<const uint8_t*>(c.bytes.data()), c.bytes.size(),
                              c.bytes.size());
            ADD_FAILURE() << "parseStHeader accepted it";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
        }
    }
}

TEST_F(SafetensorsTest, RequestErrors) {
    const std::string h =
        R"({"f8":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]},"f8b":{"dtype":"F8_E5M2","shape":[1],"data_offsets":[2,3]},"flag":{"dtype":"BOOL","shape":[2],"data_offsets":[3,5]}})";
    const std::string p = put("f8.safetensors", stFile(h, std::string("\x01\x02\x03\x01\x02", 5)));
    auto f = hs::SafetensorsFile::open(p);  // F8 is decoded (tests/core/test_fp8.cpp)
    EXPECT_EQ(f->find("f8")->dtype, hs::StDType::F8_E4M3);
    EXPECT_TRUE(torch::equal(f->tensor("f8"), torch::tensor({0.001953125f, 0.00390625f})));
    EXPECT_TRUE(torch::equal(f->tensor("f8b"), torch::tensor({0.0000457763671875f})));
    hs::test::expectFileError([&] { f->tensor("flag"); }, p, "neither 0 nor 1");
    hs::test::expectFileError([&] { f->tensor("nope"); }, p, "no tensor named 'nope'");
    hs::test::expectFileError([&] { hs::SafetensorsFile::open(m_dir); }, m_dir,
                              "not a regular file");
    hs::test::expectFileError([&] { hs::SafetensorsFile::open(path("missing")); }, "missing",
                              "cannot open");
}

TEST_F(SafetensorsTest, RandomCorruptionNeverCrashes) {
    const std::string p0 = path("good.safetensors");
    hs::writeSafetensors(p0, {{"a", torch::randn({4, 4})}, {"b", torch::ones({3}, torch::kInt64)}},
                         {{"k", "v"}});
    const std::string good = readAll(p0);
    std::mt19937 rng(7);
    int rejected = 0;
    for (int i = 0; i < 3000; ++i) {
        std::string bad = good;
        const int edits = 1 + int(rng() % 4);
        for (int k = 0; k < edits; ++k) bad[rng() % bad.size()] = char(rng());
        if (rng() % 4 == 0) bad.resize(rng() % bad.size());
        // Most through the pure parser (fast); every tenth through the mapped reader, reading
        // each tensor it accepts.
        if (i % 10 != 0) {
            try {
                hs::parseStHeader(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(),
                                  bad.size());
            } catch (const std::runtime_error&) {
                ++rejected;
            }
            continue;
        }
        const std::string p = put("fuzz.safetensors", bad);
        try {
            auto f = hs::SafetensorsFile::open(p);
            for (const auto& t : f->tensors()) {
                try {
                    f->tensor(t.name).sum();
                } catch (const hs::FileError&) {
                }
            }
        } catch (const hs::FileError&) {
            ++rejected;
        }
    }
    EXPECT_GT(rejected, 1000);
}

TEST_F(SafetensorsTest, ShardedIndex) {
    hs::writeSafetensors(path("m-1.safetensors"),
                         {{"a", torch::ones({2})}, {"b", torch::zeros({3})}});
    hs::writeSafetensors(path("m-2.safetensors"), {{"c", torch::full({1}, 7.f)}});
    const std::string idx = put(
        "m.safetensors.index.json",
        R"({"metadata":{"total_size":24},"weight_map":{"a":"m-1.safetensors","b":"m-1.safetensors","c":"m-2.safetensors"}})");
    auto set = hs::TensorSet::open(idx);
    EXPECT_EQ(set.names(), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_EQ(set.files().size(), 2u);
    EXPECT_EQ(set.tensor("c").item<float>(), 7.f);
    EXPECT_EQ(set.info("b").shape, (std::vector<int64_t>{3}));
    EXPECT_TRUE(set.contains("a"));
    EXPECT_FALSE(set.contains("d"));
    EXPECT_EQ(set.source(), idx);
    hs::test::expectFileError([&] { set.tensor("d"); }, idx, "no tensor named 'd'");

    // A single file opens as a set of one.
    auto single = hs::TensorSet::open(path("m-2.safetensors"));
    EXPECT_EQ(single.names(), std::vector<std::string>{"c"});
}

TEST_F(SafetensorsTest, ShardedIndexErrors) {
    hs::writeSafetensors(path("s1.safetensors"),
                         {{"a", torch::ones({2})}, {"b", torch::zeros({3})}});
    hs::writeSafetensors(path("s2.safetensors"), {{"c", torch::ones({1})}});
    struct Case {
        const char* map;
        const char* message;
    };
    const std::vector<Case> cases = {
        {R"("a":"s1.safetensors","b":"s1.safetensors","c":"s3.safetensors")",
         "shard 's3.safetensors' listed in the index is missing"},
        {R"("a":"s1.safetensors","b":"s2.safetensors","c":"s2.safetensors")",
         "the index assigns it to 's2.safetensors'"},
        {R"("a":"s1.safetensors","b":"s1.safetensors","c":"s2.safetensors","d":"s2.safetensors")",
         "tensor 'd' is assigned to shard 's2.safetensors', which does not hold it"},
        {R"("a":"s1.safetensors","c":"s2.safetensors")",
         "holds tensor 'b', which the index does not list"},
        {R"("a":"../s1.safetensors")", "relative path inside the folder"},
        {R"("a":5)", "is not a file name"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.message);
        const std::string idx =
            put("x.safetensors.index.json", std::string(R"({"weight_map":{)") + c.map + "}}");
        hs::test::expectFileError([&] { hs::TensorSet::open(idx); }, idx, c.message);
    }
    const std::string noMap = put("y.safetensors.index.json", R"({"metadata":{}})");
    hs::test::expectFileError([&] { hs::TensorSet::open(noMap); }, noMap, "no \"weight_map\"");
    const std::string badJson = put("z.safetensors.index.json", "{\n \"weight_map\": {,}\n}");
    hs::test::expectFileError([&] { hs::TensorSet::open(badJson); }, badJson, "line 2");
}

TEST_F(SafetensorsTest, AtomicWrite) {
    const std::string p = path("w.safetensors");
    hs::writeSafetensors(p, {{"x", torch::ones({4})}});
    EXPECT_TRUE(tempFiles().empty());
    const std::string before = readAll(p);

    // Errors found before writing: the old file stays, no temporary file is left.
    hs::test::expectFileError(
        [&] {
            hs::writeSafetensors(
                p, {{"x", torch::ones({2})}, {"y", torch::ones({2}, torch::kComplexFloat)}});
        },
        p, "cannot be stored");
    hs::test::expectFileError(
        [&] {
            hs::writeSafetensors(p, {{"x", torch::ones({2})}, {"x", torch::ones({2})}});
        },
        p, "given twice");
    hs::test::expectFileError(
        [&] {
            hs::writeSafetensors(p, {{"__metadata__", torch::ones({2})}});
        },
        p, "cannot name a tensor");
    EXPECT_EQ(readAll(p), before);
    EXPECT_TRUE(tempFiles().empty());

    // An error after the data is written (the rename onto a non-empty folder fails): the
    // temporary file is removed and the folder is untouched.
    const std::string dirTarget = path("occupied");
    fs::create_directories(dirTarget + "/inner");
    hs::test::expectFileError(
        [&] {
            hs::writeSafetensors(dirTarget, {{"x", torch::ones({1000})}});
        },
        dirTarget, "cannot rename");
    EXPECT_TRUE(tempFiles().empty());
    EXPECT_TRUE(fs::is_directory(dirTarget + "/inner"));

    // Replacing works and readers holding the old mapping keep the old bytes.
    auto old = hs::SafetensorsFile::open(p);
    auto view = old->tensor("x");
    hs::writeSafetensors(p, {{"x", torch::full({4}, 2.f)}});
    EXPECT_EQ(view.sum().item<float>(), 4.f);
    EXPECT_EQ(hs::SafetensorsFile::open(p)->tensor("x").sum().item<float>(), 8.f);
    EXPECT_TRUE(tempFiles().empty());
}
