// Loading a ~512 MB safetensors file, side by side in one run: the mapped views Halfscope uses
// (with the shrink checks: one fstat per tensor() and per checkIntact()), the same views read
// without any check (the code before the guard: from_blob over the mapping), and copy-on-load
// (every tensor cloned into fresh memory, the alternative to guarding the mapping). Each load
// reads every byte (a sum per tensor), from a warm page cache, median of 5. Memory: RssFile
// (page cache pages mapped into the process, shared and reclaimable) against RssAnon (private
// memory the copies need on top). Usage: bench_safetensors_load [folder for the 512 MB file]
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <torch/torch.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

#include "bench_timing.h"
#include "io/safetensors.h"

using hs::bench::procStatusMb;
using hs::bench::wallMs;

int main(int argc, char** argv) {
    at::set_num_threads(1);
    const std::string dir = argc > 1 ? argv[1] : "/tmp";
    const std::string path = dir + "/bench_safetensors_load.safetensors";
    constexpr int kTensors = 128;  // 128 x 4 MiB of F32
    {
        std::vector<std::pair<std::string, torch::Tensor>> ts;
        for (int i = 0; i < kTensors; ++i)
            ts.emplace_back("w" + std::to_string(i), torch::randn({1024, 1024}));
        hs::writeSafetensors(path, ts);
    }
    const auto size = std::filesystem::file_size(path);
    std::printf("file: %.0f MB, %d tensors\n", double(size) / (1 << 20), kTensors);

    double checksum = 0;
    auto viewsChecked = [&] {
        auto f = hs::SafetensorsFile::open(path);
        for (const auto& t : f->tensors()) checksum += f->tensor(t.name).sum().item<double>();
        f->checkIntact();
    };
    // The reader before the guard: one mapping, from_blob views, no fstat, no handler.
    auto viewsUnchecked = [&] {
        const int fd = ::open(path.c_str(), O_RDONLY);
        void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        ::close(fd);
        auto f = hs::SafetensorsFile::open(path);  // the header only, for the offsets
        // The data area ends where the file does (the parser refuses trailing bytes).
        auto* data = static_cast<uint8_t*>(p) + (size - f->tensors().back().end);
        for (const auto& t : f->tensors())
            checksum +=
                torch::from_blob(data + t.begin, t.shape, torch::kFloat32).sum().item<double>();
        ::munmap(p, size);
    };
    std::vector<torch::Tensor> kept;
    auto copies = [&] {
        kept.clear();
        auto f = hs::SafetensorsFile::open(path);
        for (const auto& t : f->tensors()) {
            kept.push_back(f->tensor(t.name).clone());
            checksum += kept.back().sum().item<double>();
        }
    };

    // Memory while the weights are held, measured first (the allocator keeps what it freed).
    {  // the writer's 512 MB of tensors, kept by tcmalloc (when linked) or glibc otherwise
        using Fn = void (*)();
        if (auto release =
                reinterpret_cast<Fn>(::dlsym(RTLD_DEFAULT, "MallocExtension_ReleaseFreeMemory")))
            release();
        ::malloc_trim(0);
    }
    const double anon0 = procStatusMb("RssAnon"), file0 = procStatusMb("RssFile");
    {
        auto f = hs::SafetensorsFile::open(path);
        std::vector<torch::Tensor> views;
        for (const auto& t : f->tensors()) {
            views.push_back(f->tensor(t.name));
            checksum += views.back().sum().item<double>();
        }
        std::printf("held as views:  RssAnon %+7.1f MB, RssFile %+7.1f MB\n",
                    procStatusMb("RssAnon") - anon0, procStatusMb("RssFile") - file0);
    }
    copies();
    std::printf("held as copies: RssAnon %+7.1f MB, RssFile %+7.1f MB\n",
                procStatusMb("RssAnon") - anon0, procStatusMb("RssFile") - file0);
    kept.clear();

    viewsChecked();  // warm the page cache
    struct Row {
        const char* name;
        std::function<void()> run;
        std::vector<double> ms;
    };
    std::vector<Row> rows = {{"views, unchecked (before)", viewsUnchecked, {}},
                             {"views + shrink checks (now)", viewsChecked, {}},
                             {"copy-on-load (clone)", copies, {}}};
    for (int rep = 0; rep < 5; ++rep)
        for (auto& r : rows) {
            const auto t0 = std::chrono::steady_clock::now();
            r.run();
            r.ms.push_back(wallMs(t0));
        }
    for (auto& r : rows)
        std::printf("%-30s %8.1f ms (median of 5)\n", r.name, hs::bench::median(r.ms));

    // The checks alone: what "now" adds per tensor.
    auto f = hs::SafetensorsFile::open(path);
    const auto t0 = std::chrono::steady_clock::now();
    constexpr int kChecks = 100000;
    for (int i = 0; i < kChecks; ++i) f->checkIntact();
    std::printf("checkIntact (one fstat): %.2f us each\n", wallMs(t0) * 1000 / kChecks);
    std::printf("(checksum %.3g)\n", checksum);
    std::filesystem::remove(path);
    return 0;
}
