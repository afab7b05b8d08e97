// The model library over real trees: a Hugging Face cache, ComfyUI (with extra_model_paths.yaml),
// AUTOMATIC1111, added folders; broken files listed with their errors; headers only; the cache.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "../single_file_helpers.h"
#include "library/header_probe.h"
#include "library/library_file_set.h"
#include "library/library_format.h"
#include "library/library_scan.h"
#include "library_tree.h"
#include "library_tree_suite.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

const LibraryEntry* entryNamed(const LibraryReport& r, const std::string& name) {
    for (const auto& e : r.entries)
        if (e.name == name) return &e;
    return nullptr;
}

std::string names(const LibraryReport& r) {
    std::string s;
    for (const auto& e : r.entries) s += e.name + " [" + e.source + "] ";
    return s;
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

uint64_t sizeOf(const std::string& p) {
    return fs::file_size(p);
}

class Library : public test::LibraryTreeSuite {
protected:
    static void SetUpTestSuite() { writeTree("library"); }
    LibraryOptions options() const {
        LibraryOptions o;
        o.hfCaches = {s_tree->hf};
        o.defaultHfCache = false;
        o.comfyui = {s_tree->comfy};
        o.a1111 = {s_tree->a1111};
        return o;
    }
};

TEST_F(Library, ListsTheHubSnapshotComfyUiAndA1111ModelsFromTheirHeaders) {
    const LibraryReport r = scanLibrary(options());
    const auto& t = *s_tree;
    SCOPED_TRACE(names(r));

    // The hub repository: the snapshot refs/main names, a pipeline of symlinks into blobs/.
    const LibraryEntry* hub = entryNamed(r, "black-forest-labs/FLUX.1-tiny");
    ASSERT_NE(hub, nullptr);
    EXPECT_EQ(hub->source, "hf-cache");
    EXPECT_EQ(hub->kind, EntryKind::Pipeline);
    EXPECT_EQ(hub->path, t.snapshot);
    EXPECT_EQ(hub->className, "FluxPipeline");
    EXPECT_EQ(hub->family, "Flux transformer");
    EXPECT_EQ(hub->dtype, "F32");
    EXPECT_EQ(hub->slots.at("transformer"), "FluxTransformer2DModel");
    EXPECT_EQ(hub->slots.at("text_encoder_2"), "T5EncoderModel");
    // Symlinks followed, each blob once: the folder's safetensors bytes, whatever the links.
    EXPECT_EQ(hub->bytes, t.pipelineBytes);
    EXPECT_EQ(hub->files.size(), 6u);  // 2 transformer shards, clip, 2 T5 shards, vae
    EXPECT_TRUE(hub->error.empty()) << hub->error;
    // The older snapshot shares the blobs and is not the current one: not listed.
    for (const auto& e : r.entries) EXPECT_FALSE(contains(e.path, "fedcba98")) << e.path;

    // ComfyUI's split FLUX set, by what each file holds.
    const LibraryEntry* dit = entryNamed(r, "flux1-tiny.safetensors");
    ASSERT_NE(dit, nullptr);
    EXPECT_EQ(dit->source, "comfyui");
    EXPECT_EQ(dit->folder, "diffusion_models");
    EXPECT_EQ(dit->kind, EntryKind::SingleFile);
    EXPECT_EQ(dit->family, "Flux transformer");
    EXPECT_EQ(dit->variant, "FLUX.1-dev style (guidance embedding)");
    ASSERT_EQ(dit->layouts.size(), 1u);
    EXPECT_EQ(dit->layouts[0], "Black Forest Labs Flux transformer (at the root)");
    EXPECT_EQ(dit->dtype, "F32");
    EXPECT_EQ(dit->bytes, sizeOf(t.flux.bfl));
    EXPECT_EQ(dit->fp16Risk, "unknown");
    const LibraryEntry* ae = entryNamed(r, "ae.safetensors");
    ASSERT_NE(ae, nullptr);
    EXPECT_EQ(ae->folder, "vae");
    EXPECT_EQ(ae->slots, (std::map<std::string, std::string>{{"vae", "AutoencoderKL"}}));
    EXPECT_TRUE(contains(ae->layouts.at(0), "LDM VAE")) << ae->layouts.at(0);
    const LibraryEntry* clip = entryNamed(r, "clip_l.safetensors");
    ASSERT_NE(clip, nullptr);
    EXPECT_EQ(clip->slots.count("text_encoder"), 1u);
    const LibraryEntry* t5 = entryNamed(r, "t5xxl_tiny.safetensors");
    ASSERT_NE(t5, nullptr);
    EXPECT_EQ(t5->folder, "text_encoders");
    EXPECT_EQ(t5->family, "T5 encoder");

    // extra_model_paths.yaml: the checkpoints folder (walked into flux/) and the second of two
    // vae folders of a `|` block, relative to a base_path relative to the yaml.
    const LibraryEntry* extraDit = entryNamed(r, "flux/flux1-comfy.safetensors");
    ASSERT_NE(extraDit, nullptr);
    EXPECT_EQ(extraDit->folder, "checkpoints");
    EXPECT_EQ(extraDit->family, "Flux transformer");
    EXPECT_TRUE(contains(extraDit->layouts.at(0), "model.diffusion_model."));
    const LibraryEntry* extraVae = entryNamed(r, "ae-copy.safetensors");
    ASSERT_NE(extraVae, nullptr);
    EXPECT_EQ(extraVae->folder, "vae");
    EXPECT_EQ(extraVae->path, fs::path(t.extra + "/vaes-b/ae-copy.safetensors").string());

    // AUTOMATIC1111: the SD 1.x checkpoint with its three parts.
    const LibraryEntry* sd = entryNamed(r, "sd15-tiny.safetensors");
    ASSERT_NE(sd, nullptr);
    EXPECT_EQ(sd->source, "a1111");
    EXPECT_EQ(sd->folder, "Stable-diffusion");
    EXPECT_EQ(sd->className, "UNet2DConditionModel");
    EXPECT_TRUE(contains(sd->variant, "SD 1.x")) << sd->variant;
    EXPECT_EQ(sd->slots.size(), 3u);
    EXPECT_EQ(sd->layouts.size(), 3u);
    EXPECT_EQ(sd->bytes, sizeOf(t.sdFile));
    // Parameters are the header's elements: the same as the mapped file's tensors.
    int64_t params = 0;
    for (const auto& kv : test::openWeights(t.sdFile)) params += kv.second.numel();
    EXPECT_EQ(sd->parameters, params);

    // Broken files are listed, each with what is wrong.
    const LibraryEntry* truncated = entryNamed(r, "truncated.safetensors");
    ASSERT_NE(truncated, nullptr);
    EXPECT_TRUE(contains(truncated->error, "exceeds the file size 100")) << truncated->error;
    const LibraryEntry* corrupt = entryNamed(r, "corrupt.safetensors");
    ASSERT_NE(corrupt, nullptr);
    EXPECT_FALSE(corrupt->error.empty());
    const LibraryEntry* gone = entryNamed(r, "gone.safetensors");
    ASSERT_NE(gone, nullptr);
    EXPECT_EQ(gone->kind, EntryKind::Unreadable);
    EXPECT_TRUE(
        contains(gone->error, "dangling symlink to " + t.root + "/nowhere/gone.safetensors"))
        << gone->error;
    const LibraryEntry* fifo = entryNamed(r, "pipe.safetensors");
    ASSERT_NE(fifo, nullptr);
    EXPECT_EQ(fifo->error, "pipe.safetensors: not a regular file (a pipe (FIFO))");
    // The symlink up to models/ walks nothing twice: one ae.safetensors entry.
    int aes = 0;
    for (const auto& e : r.entries)
        aes += e.path == t.comfy + "/models/vae/ae.safetensors" || contains(e.name, "up/");
    EXPECT_EQ(aes, 1) << names(r);
    bool loopSaid = false;
    for (const auto& n : r.notes) loopSaid |= contains(n, "vae/up: a symlink to a folder above it");
    EXPECT_TRUE(loopSaid);
    const LibraryEntry* pickle = entryNamed(r, "old.ckpt");
    ASSERT_NE(pickle, nullptr);
    EXPECT_TRUE(contains(pickle->error, "pickle")) << pickle->error;
    EXPECT_EQ(entryNamed(r, "README.txt"), nullptr);  // not a model
    // The yaml's loras kind is not a model folder.
    for (const auto& n : r.notes) EXPECT_FALSE(contains(n, "loras")) << n;

    // The table names every entry and repeats the errors in full.
    const std::string table = formatLibrary(r);
    EXPECT_TRUE(contains(table, "dangling symlink")) << table;
    EXPECT_TRUE(contains(table, "black-forest-labs/FLUX.1-tiny")) << table;
    EXPECT_EQ(toJson(r)["entries"].size(), r.entries.size());
}

TEST_F(Library, AddedFoldersAndFilesAndShardSets) {
    LibraryOptions o;
    o.defaultHfCache = false;
    o.user = {s_tree->flux.folder + "/transformer",
              s_tree->flux.folder + "/text_encoder_2/model.safetensors.index.json",
              s_tree->flux.folder, s_tree->flux.bfl};
    const LibraryReport r = scanLibrary(o);
    SCOPED_TRACE(names(r));
    ASSERT_EQ(r.entries.size(), 4u);
    EXPECT_EQ(r.entries[0].kind, EntryKind::Component);
    EXPECT_EQ(r.entries[0].family, "Flux transformer");
    EXPECT_EQ(r.entries[0].files.size(), 2u);  // its two shards
    EXPECT_EQ(r.entries[1].kind, EntryKind::ShardSet);
    EXPECT_EQ(r.entries[1].files.size(), 2u);
    EXPECT_EQ(r.entries[2].kind, EntryKind::Pipeline);
    EXPECT_EQ(r.entries[3].kind, EntryKind::SingleFile);
    EXPECT_EQ(r.entries[3].source, "user");
    for (const auto& e : r.entries) EXPECT_TRUE(e.error.empty()) << e.name << ": " << e.error;

    // A component folder holding only an fp16 variant, and one holding only pickle weights.
    test::ScopedDir folders("library-folders");
    const std::string vae = s_tree->flux.folder + "/vae";
    fs::create_directories(folders.path + "/vae-fp16");
    fs::copy_file(vae + "/config.json", folders.path + "/vae-fp16/config.json");
    fs::copy_file(vae + "/diffusion_pytorch_model.safetensors",
                  folders.path + "/vae-fp16/diffusion_pytorch_model.fp16.safetensors");
    fs::create_directories(folders.path + "/vae-pickle");
    fs::copy_file(vae + "/config.json", folders.path + "/vae-pickle/config.json");
    std::ofstream(folders.path + "/vae-pickle/diffusion_pytorch_model.bin") << "pickle";
    LibraryOptions f;
    f.defaultHfCache = false;
    f.user = {folders.path};
    const LibraryReport rf = scanLibrary(f);
    SCOPED_TRACE(names(rf));
    ASSERT_EQ(rf.entries.size(), 2u);
    EXPECT_TRUE(contains(rf.entries[0].name, "/vae-fp16")) << rf.entries[0].name;
    EXPECT_EQ(rf.entries[0].variant, "fp16 weights variant");
    EXPECT_TRUE(rf.entries[0].error.empty()) << rf.entries[0].error;
    EXPECT_EQ(rf.entries[0].family, "AutoencoderKL");
    EXPECT_TRUE(contains(rf.entries[1].error, "pickle weights only (diffusion_pytorch_model.bin)"))
        << rf.entries[1].error;

    // Stored in fp16 throughout: the one thing the headers say about fp16. The same weights in
    // fp32: unknown (only the weight check, which reads them, can tell).
    test::ScopedDir dir("library-fp16");
    WeightMap half;
    for (const auto& kv : test::openWeights(s_tree->flux.bfl))
        half[kv.first] = kv.second.to(torch::kHalf);
    LibraryOptions h;
    h.defaultHfCache = false;
    h.user = {test::writeWeights(dir.path, "flux1-tiny-fp16.safetensors", half), s_tree->flux.bfl};
    const LibraryReport rh = scanLibrary(h);
    ASSERT_EQ(rh.entries.size(), 2u);
    EXPECT_EQ(rh.entries[0].dtype, "F16");
    EXPECT_EQ(rh.entries[0].fp16Risk, "weights fit fp16");
    EXPECT_EQ(rh.entries[1].fp16Risk, "unknown");
}

TEST_F(Library, TheCacheMakesASecondScanReadNoHeader) {
    test::ScopedDir cacheDir("library-cache");
    LibraryOptions o = options();
    o.cachePath = cacheDir.path + "/halfscope/library.json";
    const int before = headerReadCount();
    const LibraryReport first = scanLibrary(o);
    const int firstReads = headerReadCount() - before;
    EXPECT_GT(firstReads, 10);
    EXPECT_EQ(first.headerReads, firstReads);
    ASSERT_TRUE(fs::exists(o.cachePath));

    const int mid = headerReadCount();
    const LibraryReport second = scanLibrary(o);
    EXPECT_EQ(headerReadCount() - mid, 0);
    EXPECT_EQ(second.headerReads, 0);
    EXPECT_EQ(second.cacheHits, firstReads);
    ASSERT_EQ(second.entries.size(), first.entries.size());
    EXPECT_EQ(toJson(second)["entries"], toJson(first)["entries"]);

    // A file rewritten (new mtime) is read again, and only it.
    const std::string ae = s_tree->comfy + "/models/vae/ae.safetensors";
    struct stat st {};
    ASSERT_EQ(::stat(ae.c_str(), &st), 0);
    const struct timespec times[2] = {st.st_atim, {st.st_mtim.tv_sec + 5, st.st_mtim.tv_nsec}};
    ASSERT_EQ(::utimensat(AT_FDCWD, ae.c_str(), times, 0), 0);
    const LibraryReport third = scanLibrary(o);
    EXPECT_EQ(third.headerReads, 1);

    // A corrupt cache file is an empty cache, with a note.
    std::ofstream(o.cachePath) << "{\"version\": 1, \"files\": [";
    const LibraryReport fourth = scanLibrary(o);
    EXPECT_EQ(fourth.headerReads, firstReads);
    ASSERT_FALSE(fourth.notes.empty());
    EXPECT_TRUE(contains(fourth.notes[0], "cache ignored")) << fourth.notes[0];
}

// Headers only: a 1 GiB sparse file whose data area was never written is described from its
// first bytes, with read() traffic (this process's rchar) far below its size.
uint64_t bytesReadByThisProcess() {
    std::ifstream io("/proc/self/io");
    std::string key;
    uint64_t value = 0;
    while (io >> key >> value)
        if (key == "rchar:") return value;
    return 0;
}

TEST_F(Library, ReadsHeadersOnlyNeverTheWeights) {
    test::ScopedDir dir("library-sparse");
    // The header of the real BFL file, then its data area declared 1 GiB larger by one more
    // tensor at the end, left sparse.
    const WeightMap w = test::openWeights(s_tree->flux.bfl);
    std::vector<std::pair<std::string, torch::Tensor>> list;
    for (const auto& kv : w) list.emplace_back(kv.first, kv.second);
    list.emplace_back("zz_padding", torch::empty({1}, torch::kFloat32));
    const std::string small = dir.path + "/small.safetensors";
    writeSafetensors(small, list);
    // Rewrite the last tensor's shape and end offset in the header text (same length kept by
    // padding with spaces, as the format allows).
    std::string bytes;
    {
        std::ifstream in(small, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(bytes[i]);
    nlohmann::json header = nlohmann::json::parse(bytes.substr(8, n));
    const uint64_t dataSize = bytes.size() - 8 - n;
    const uint64_t begin = header["zz_padding"]["data_offsets"][0].get<uint64_t>();
    const uint64_t padElems = (1ull << 28);  // 1 GiB of F32
    header["zz_padding"]["shape"] = {padElems};
    header["zz_padding"]["data_offsets"] = {begin, begin + 4 * padElems};
    std::string text = header.dump();
    while ((8 + text.size()) % 8) text += ' ';
    const uint64_t newN = text.size();
    std::string head(8, '\0');
    for (int i = 0; i < 8; ++i) head[i] = static_cast<char>((newN >> (8 * i)) & 0xff);
    const std::string big = dir.path + "/flux1-sparse.safetensors";
    {
        std::ofstream out(big, std::ios::binary);
        out << head << text << bytes.substr(8 + n, begin);
    }
    const uint64_t total = 8 + newN + begin + 4 * padElems;
    ASSERT_EQ(::truncate(big.c_str(), static_cast<off_t>(total)), 0);
    (void)dataSize;

    LibraryOptions o;
    o.defaultHfCache = false;
    o.user = {big};
    const uint64_t before = bytesReadByThisProcess();
    const LibraryReport r = scanLibrary(o);
    const uint64_t read = bytesReadByThisProcess() - before;
    ASSERT_EQ(r.entries.size(), 1u);
    const LibraryEntry& e = r.entries[0];
    EXPECT_TRUE(e.error.empty() || contains(e.error, "zz_padding")) << e.error;
    EXPECT_EQ(e.bytes, total);
    EXPECT_GT(e.parameters, static_cast<int64_t>(padElems));
    EXPECT_EQ(e.layouts.size(), 1u);
    std::printf("  sparse %.2f GiB file described with %llu bytes read\n",
                static_cast<double>(total) / (1ull << 30), static_cast<unsigned long long>(read));
    EXPECT_LT(read, 1u << 20);
}

TEST_F(Library, AssemblesASplitFluxSetAndNamesTheMissingPart) {
    LibraryOptions o = options();
    const LibraryReport r = scanLibrary(o);
    const LibraryEntry* dit = entryNamed(r, "flux1-tiny.safetensors");
    const LibraryEntry* ae = entryNamed(r, "ae.safetensors");
    const LibraryEntry* clip = entryNamed(r, "clip_l.safetensors");
    const LibraryEntry* t5 = entryNamed(r, "t5xxl_tiny.safetensors");
    ASSERT_TRUE(dit && ae && clip && t5);

    LibraryFileSet noVae = assembleFileSet({*dit, *clip, *t5});
    EXPECT_TRUE(noVae.error.empty()) << noVae.error;
    EXPECT_EQ(noVae.pipeline, "FluxPipeline");
    EXPECT_EQ(noVae.missing, std::vector<std::string>{"no VAE: pick an ae.safetensors"});
    EXPECT_FALSE(noVae.complete());

    LibraryFileSet full = assembleFileSet({*clip, *ae, *dit, *t5});  // any order
    EXPECT_TRUE(full.complete()) << full.error;
    EXPECT_EQ(full.model, dit->path);
    EXPECT_EQ(full.with.vae, ae->path);
    EXPECT_EQ(full.with.textEncoder, clip->path);
    EXPECT_EQ(full.with.textEncoder2, t5->path);

    // T5 is optional for FLUX: said, not required.
    LibraryFileSet noT5 = assembleFileSet({*dit, *clip, *ae});
    EXPECT_TRUE(noT5.missing.empty());
    ASSERT_EQ(noT5.optional.size(), 1u);
    EXPECT_TRUE(contains(noT5.optional[0], "t5xxl")) << noT5.optional[0];

    EXPECT_TRUE(contains(assembleFileSet({*ae, *clip}).error, "no denoiser"));
    const LibraryEntry* extraVae = entryNamed(r, "ae-copy.safetensors");
    ASSERT_NE(extraVae, nullptr);
    EXPECT_TRUE(contains(assembleFileSet({*dit, *ae, *extraVae}).error, "both hold the VAE"));
    const LibraryEntry* gone = entryNamed(r, "gone.safetensors");
    ASSERT_NE(gone, nullptr);
    EXPECT_TRUE(contains(assembleFileSet({*dit, *gone}).error, "cannot be read"));

    // An SD checkpoint holds every part itself.
    const LibraryEntry* sd = entryNamed(r, "sd15-tiny.safetensors");
    ASSERT_NE(sd, nullptr);
    LibraryFileSet sdSet = assembleFileSet({*sd});
    EXPECT_TRUE(sdSet.complete()) << sdSet.error << (sdSet.missing.empty() ? "" : sdSet.missing[0]);
}

TEST_F(Library, ABoundedScanStopsAndSaysSo) {
    LibraryOptions o = options();
    o.maxEntries = 3;
    const LibraryReport r = scanLibrary(o);
    EXPECT_EQ(r.entries.size(), 3u);
    bool said = false;
    for (const auto& n : r.notes) said |= contains(n, "stopped listing at 3 entries");
    EXPECT_TRUE(said);

    LibraryOptions v = options();
    v.maxVisited = 5;
    const LibraryReport rv = scanLibrary(v);
    said = false;
    for (const auto& n : rv.notes) said |= contains(n, "after looking at 5 folder entries");
    EXPECT_TRUE(said);

    LibraryOptions d;
    d.defaultHfCache = false;
    d.user = {s_tree->extra};
    d.maxDepth = 1;  // ckpts/flux/ is two levels down
    const LibraryReport rd = scanLibrary(d);
    EXPECT_EQ(entryNamed(rd, "extra/ckpts/flux/flux1-comfy.safetensors"), nullptr);
    said = false;
    for (const auto& n : rd.notes) said |= contains(n, "not looked below 1 folder levels");
    EXPECT_TRUE(said) << names(rd);
}

// A generated tree of 300 real checkpoints (FLUX DiT, SD 1.x, VAE copies in 30 folders): the
// first scan reads 300 headers and runs the detectors, the second reads none. Times printed.
TEST_F(Library, SecondScanOfAnUnchangedTreeIsFasterAndReadsNoHeader) {
    test::ScopedDir dir("library-timing");
    const std::vector<std::string> models{s_tree->flux.bfl, s_tree->sdFile, s_tree->flux.ae};
    for (int f = 0; f < 30; ++f)
        for (int i = 0; i < 10; ++i)
            test::copyInto(models[i % 3], dir.path + "/tree/d" + std::to_string(f),
                           "m" + std::to_string(i) + ".safetensors");
    LibraryOptions o;
    o.defaultHfCache = false;
    o.user = {dir.path + "/tree"};
    o.cachePath = dir.path + "/library.json";
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const LibraryReport first = scanLibrary(o);
    const auto t1 = Clock::now();
    const LibraryReport second = scanLibrary(o);
    const auto t2 = Clock::now();
    const double firstMs = std::chrono::duration<double, std::milli>(t1 - t0).count();
    const double secondMs = std::chrono::duration<double, std::milli>(t2 - t1).count();
    std::printf(
        "  300 files: first scan %.1f ms (%d headers read), second %.1f ms (%d read, %d "
        "from the cache)\n",
        firstMs, first.headerReads, secondMs, second.headerReads, second.cacheHits);
    EXPECT_EQ(first.entries.size(), 300u);
    EXPECT_EQ(first.headerReads, 300);
    EXPECT_EQ(second.headerReads, 0);
    EXPECT_EQ(second.cacheHits, 300);
    EXPECT_LT(secondMs, firstMs);
}

// A hub repository without refs/main lists every snapshot; refs/main naming a snapshot that is
// gone is an entry with that error. The default cache follows HF_HUB_CACHE, then HF_HOME.
TEST_F(Library, HubSnapshotsWithoutRefsAndTheDefaultCacheLocation) {
    test::ScopedDir dir("library-hub");
    const std::string hub = dir.path + "/hub";
    const std::string vaeRepo = hub + "/models--someone--tiny-vae";
    for (const char* rev : {"aaaaaaaaaaaa", "bbbbbbbbbbbb"}) {
        const std::string snap = vaeRepo + "/snapshots/" + rev;
        fs::create_directories(snap);
        fs::copy_file(s_tree->flux.folder + "/vae/config.json", snap + "/config.json");
        fs::copy_file(s_tree->flux.folder + "/vae/diffusion_pytorch_model.safetensors",
                      snap + "/diffusion_pytorch_model.safetensors");
    }
    fs::create_directories(hub + "/models--someone--gone/refs");
    std::ofstream(hub + "/models--someone--gone/refs/main") << "cccccccc";
    fs::create_directories(hub + "/datasets--someone--data");  // not a model repository
    fs::create_directories(hub + "/models--someone--escape/refs");
    std::ofstream(hub + "/models--someone--escape/refs/main") << "../../../etc";
    // A pipeline repository with its single file at the top too, as FLUX.1-dev's is.
    const std::string flux = hub + "/models--someone--flux/snapshots/dddddddd";
    fs::create_directories(flux);
    fs::copy(s_tree->flux.folder, flux, fs::copy_options::recursive);
    fs::copy_file(s_tree->flux.bfl, flux + "/flux1-tiny.safetensors");
    fs::create_directories(hub + "/models--someone--flux/refs");
    std::ofstream(hub + "/models--someone--flux/refs/main") << "dddddddd\n";

    LibraryOptions o;
    o.defaultHfCache = false;
    o.hfCaches = {hub};
    LibraryReport r = scanLibrary(o);
    SCOPED_TRACE(names(r));
    ASSERT_EQ(r.entries.size(), 6u);
    EXPECT_EQ(r.entries[0].name, "someone/escape");
    EXPECT_EQ(r.entries[0].error, "refs/main does not hold a snapshot name: '../../../etc'");
    EXPECT_EQ(r.entries[1].name, "someone/flux");
    EXPECT_EQ(r.entries[1].kind, EntryKind::Pipeline);
    EXPECT_EQ(r.entries[2].name, "someone/flux: flux1-tiny.safetensors");
    EXPECT_EQ(r.entries[2].family, "Flux transformer");
    r.entries.erase(r.entries.begin(), r.entries.begin() + 3);
    EXPECT_EQ(r.entries[0].name, "someone/gone");
    EXPECT_TRUE(contains(r.entries[0].error, "refs/main names snapshot cccccccc, which is missing"))
        << r.entries[0].error;
    EXPECT_EQ(r.entries[1].name, "someone/tiny-vae@aaaaaaaa");
    EXPECT_EQ(r.entries[2].name, "someone/tiny-vae@bbbbbbbb");
    EXPECT_EQ(r.entries[1].kind, EntryKind::Component);
    EXPECT_EQ(r.entries[1].className, "AutoencoderKL");

    const char* hubEnv = std::getenv("HF_HUB_CACHE");
    const char* homeEnv = std::getenv("HF_HOME");
    const std::string savedHub = hubEnv ? hubEnv : "", savedHome = homeEnv ? homeEnv : "";
    ::unsetenv("HF_HUB_CACHE");
    ::setenv("HF_HOME", dir.path.c_str(), 1);
    EXPECT_EQ(defaultHfCaches(), std::vector<std::string>{hub});
    ::setenv("HF_HUB_CACHE", (dir.path + "/elsewhere").c_str(), 1);
    EXPECT_TRUE(defaultHfCaches().empty());  // named but absent: nothing to scan
    if (hubEnv)
        ::setenv("HF_HUB_CACHE", savedHub.c_str(), 1);
    else
        ::unsetenv("HF_HUB_CACHE");
    if (homeEnv)
        ::setenv("HF_HOME", savedHome.c_str(), 1);
    else
        ::unsetenv("HF_HOME");
}

// A hub repository is a closed world: its snapshots link into its own blobs/. A link to / (or
// anywhere else outside the repository) is listed with why it is not followed, and the walk
// never goes there; a shard index naming a shard outside its folder is refused by name.
TEST_F(Library, HubLinksOutOfTheRepositoryAndShardsOutOfTheFolderAreNotFollowed) {
    test::ScopedDir dir("library-hub-links");
    const std::string hub = dir.path + "/hub";
    const std::string repo = hub + "/models--someone--links";
    const std::string snap = repo + "/snapshots/eeeeeeee";
    fs::create_directories(snap);
    fs::create_directories(repo + "/blobs");
    fs::copy_file(s_tree->flux.ae, repo + "/blobs/0123abcd");
    fs::create_symlink("../../blobs/0123abcd", snap + "/ae.safetensors");  // as the hub links
    fs::create_symlink("/", snap + "/root");
    fs::create_symlink(s_tree->flux.bfl, snap + "/outside.safetensors");
    LibraryOptions o;
    o.defaultHfCache = false;
    o.hfCaches = {hub};
    const LibraryReport r = scanLibrary(o);
    SCOPED_TRACE(names(r));
    const LibraryEntry* ae = entryNamed(r, "someone/links/ae.safetensors");
    ASSERT_NE(ae, nullptr);
    EXPECT_TRUE(ae->error.empty()) << ae->error;
    for (const char* name : {"someone/links/root", "someone/links/outside.safetensors"}) {
        const LibraryEntry* e = entryNamed(r, name);
        ASSERT_NE(e, nullptr) << name;
        EXPECT_TRUE(contains(e->error, "leads out of the Hugging Face cache repository"))
            << e->error;
    }
    EXPECT_EQ(r.entries.size(), 3u);
    EXPECT_EQ(r.headerReads, 1);

    const std::string set = dir.path + "/set";
    fs::create_directories(set);
    std::ofstream(set + "/model.safetensors.index.json")
        << R"({"weight_map": {"a.weight": "../../outside.safetensors"}})";
    LibraryOptions u;
    u.defaultHfCache = false;
    u.user = {set + "/model.safetensors.index.json"};
    const LibraryReport ru = scanLibrary(u);
    ASSERT_EQ(ru.entries.size(), 1u);
    EXPECT_TRUE(contains(ru.entries[0].error, "shard name '../../outside.safetensors' climbs out"))
        << ru.entries[0].error;
    EXPECT_EQ(ru.headerReads, 0);
}

// Stop is seen inside an entry too: a pipeline folder given directly is described file by
// file, and a stopped scan reads none of them (each says why).
TEST_F(Library, AStoppedScanReadsNoMoreFilesOfAPipeline) {
    std::atomic<bool> stop{true};
    LibraryOptions o;
    o.defaultHfCache = false;
    o.user = {s_tree->flux.folder};
    o.cancel = &stop;
    const LibraryReport r = scanLibrary(o);
    ASSERT_EQ(r.entries.size(), 1u);
    EXPECT_EQ(r.headerReads, 0);
    EXPECT_TRUE(contains(r.entries[0].error, "not read: the scan was stopped"))
        << r.entries[0].error;
    stop = false;
    const LibraryReport whole = scanLibrary(o);
    ASSERT_EQ(whole.entries.size(), 1u);
    EXPECT_GT(whole.headerReads, 3);
    EXPECT_TRUE(whole.entries[0].error.empty()) << whole.entries[0].error;
}

// Permission denied, as a user who is not root sees it (the tests run as root here, which reads
// anything): a child process drops to nobody and scans a file and a folder it may not read.
// Both are listed with the error; the file is not cached as broken, so once readable it is read.
TEST_F(Library, PermissionDeniedIsListedAndNotCachedAsBroken) {
    test::ScopedDir dir("library-denied");
    ::chmod(dir.path.c_str(), 0777);
    const std::string file =
        test::copyInto(s_tree->flux.ae, dir.path + "/models", "ae.safetensors");
    fs::create_directories(dir.path + "/models/locked");
    ::chmod((dir.path + "/models").c_str(), 0755);
    ::chmod(file.c_str(), 0);
    ::chmod((dir.path + "/models/locked").c_str(), 0);
    LibraryOptions o;
    o.defaultHfCache = false;
    o.user = {dir.path + "/models"};
    o.cachePath = dir.path + "/library.json";

    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::close(fds[0]);
        std::string out = "setuid failed";
        if (::setgid(65534) == 0 && ::setuid(65534) == 0) {
            const LibraryReport r = scanLibrary(o);
            out.clear();
            for (const auto& e : r.entries) out += e.name + ": " + e.error + "\n";
        }
        (void)!::write(fds[1], out.data(), out.size());
        ::_exit(0);
    }
    ::close(fds[1]);
    std::string got;
    char buf[4096];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, size_t(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (got == "setuid failed") GTEST_SKIP() << "cannot drop to an unprivileged user here";
    EXPECT_TRUE(
        contains(got, "models/ae.safetensors: ae.safetensors: cannot open: Permission denied"))
        << got;
    EXPECT_TRUE(contains(got, "models/locked: cannot list folder: Permission denied")) << got;

    ::chmod(file.c_str(), 0644);
    ::chmod((dir.path + "/models/locked").c_str(), 0755);
    const LibraryReport r = scanLibrary(o);
    ASSERT_EQ(r.entries.size(), 1u) << names(r);
    EXPECT_TRUE(r.entries[0].error.empty()) << r.entries[0].error;
    EXPECT_EQ(r.headerReads, 1);
    EXPECT_EQ(r.entries[0].slots.count("vae"), 1u);
}

TEST_F(Library, CliListsTheTreeAsATableAndAsJson) {
    int status = -1;
    const std::string args = "library --no-cache --comfyui '" + s_tree->comfy + "' --a1111 '" +
                             s_tree->a1111 + "' --hf-cache '" + s_tree->hf + "'";
    const std::string table = test::runCli(args, status, true);
    EXPECT_EQ(status, 0) << table;
    std::printf("%s", table.c_str());
    EXPECT_TRUE(contains(table, "FLUX.1-dev style")) << table;
    EXPECT_TRUE(contains(table, "dangling symlink")) << table;
    const std::string json = test::runCli(args + " --json", status, true);
    EXPECT_EQ(status, 0);
    const auto j = nlohmann::json::parse(json);
    EXPECT_GE(j["entries"].size(), 10u);
    EXPECT_EQ(j["cache_hits"], 0);
    const std::string bad = test::runCli("library --bogus", status);
    EXPECT_EQ(status, 2) << bad;
}

}  // namespace
}  // namespace hs
