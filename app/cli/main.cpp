// halfscope-cli: the engine without the studio, for servers and notebooks.
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include "base/cancel.h"
#include "cli/command.h"
#include "cli/load_progress_line.h"
#include "cli/run_options.h"
#include "cli/terminal_stream.h"
#include "cli/work_progress_line.h"
#include "io/terminal_text.h"
#include "numerics/format.h"
#include "runtime/gpu_memory.h"
#include "runtime/runtime.h"

namespace hs::cli {

std::vector<Command>& commands() {
    static std::vector<Command> c;
    return c;
}

Args::Args(const std::vector<std::string>& argv, const std::vector<std::string>& flags) {
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.rfind("--", 0) == 0 && a.size() > 2) {
            auto eq = a.find('=');
            std::string name = a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
            bool isFlag = std::find(flags.begin(), flags.end(), name) != flags.end();
            if (eq != std::string::npos) {
                m_opts.emplace(name, a.substr(eq + 1));
            } else if (isFlag) {
                m_opts.emplace(name, "1");
            } else {
                if (i + 1 >= argv.size()) throw UsageError("option --" + name + " needs a value");
                m_opts.emplace(name, argv[++i]);
            }
        } else {
            m_positional.push_back(a);
        }
    }
}

std::optional<std::string> Args::get(const std::string& name) const {
    auto it = m_opts.find(name);
    if (it == m_opts.end()) return std::nullopt;
    return it->second;
}

std::vector<std::string> Args::all(const std::string& name) const {
    std::vector<std::string> out;
    auto r = m_opts.equal_range(name);
    for (auto it = r.first; it != r.second; ++it) out.push_back(it->second);
    return out;
}

std::string Args::require(const std::string& name) const {
    auto v = get(name);
    if (!v) throw UsageError("missing required option --" + name);
    return *v;
}

namespace {

// Option `name`'s value `v` read whole by `parse(text, &used)` (std::stoi, std::stod), or
// `fallback` when it is not given; a value that does not read is a usage error that says it
// expects `what`.
template <class T, class Parse>
T parseOption(const std::string& name, const std::optional<std::string>& v, T fallback, Parse parse,
              const char* what) {
    if (!v) return fallback;
    try {
        size_t used = 0;
        const T x = parse(*v, &used);
        if (used != v->size()) throw std::invalid_argument("");
        return x;
    } catch (const std::exception&) {
        throw UsageError("--" + name + " expects " + what + ", got '" + *v + "'");
    }
}

}  // namespace

int Args::getInt(const std::string& name, int fallback) const {
    return parseOption(
        name, get(name), fallback,
        [](const std::string& t, size_t* used) { return std::stoi(t, used); }, "an integer");
}

double Args::getDouble(const std::string& name, double fallback) const {
    return parseOption(
        name, get(name), fallback,
        [](const std::string& t, size_t* used) { return std::stod(t, used); }, "a number");
}

const std::vector<std::string>& globalOptions() {
    static const std::vector<std::string> g = {"threads", "cpu-bf16", "quiet"};
    return g;
}

void Args::allowOnly(const std::vector<std::string>& known) const {
    const auto& global = globalOptions();
    for (const auto& kv : m_opts) {
        if (std::find(known.begin(), known.end(), kv.first) == known.end() &&
            std::find(global.begin(), global.end(), kv.first) == global.end())
            throw UsageError("unknown option --" + kv.first);
    }
}

}  // namespace hs::cli

namespace {

void printUsage(std::ostream& os) {
    os << "usage: halfscope-cli COMMAND [options]   (halfscope-cli COMMAND --help for details)\n\n"
          "commands:\n";
    for (const auto& c : hs::cli::commands())
        os << "  " << c.name << std::string(14 - std::min<size_t>(13, std::strlen(c.name)), ' ')
           << c.summary << "\n";
    os << "\nglobal options:\n"
          "  --threads N       LibTorch intra-op threads (default: all cores, or "
          "$HALFSCOPE_THREADS)\n"
          "  --cpu-bf16 MODE   how bf16 runs on the CPU: emulated (default; fp32 compute with\n"
          "                    every op output rounded to bf16, as a GPU stores it), native\n"
          "                    (oneDNN's bf16 kernels: fast only with AVX512-BF16/AMX), or auto\n"
          "                    (native exactly where the CPU has bf16 instructions);\n"
          "                    default $HALFSCOPE_CPU_BF16\n"
          "  --quiet           no progress on stderr (generate, compare, bisect print\n"
          "                    \"loading COMPONENT: shard i/n, bytes, time left\", how long\n"
          "                    text encoding and decoding took, the streamed block resident,\n"
          "                    the search's trial i of n, and the run's estimate of its time\n"
          "                    and memory after its second step, against the time it took)\n";
}

}  // namespace

namespace {

// Ctrl-C (or SIGTERM) sets the flag the engine reads at every probe point and weight tensor
// (base/cancel.h): the command stops within one block and writes nothing more. A second
// signal ends the process at once, for an operation that is not a block (one huge kernel).
std::atomic<bool> g_interrupted{false};
extern "C" void onInterrupt(int sig) {
    if (g_interrupted.exchange(true)) {
        std::signal(sig, SIG_DFL);
        std::raise(sig);
    }
}

constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it

int interrupted(const std::string& command) {
    std::cerr << "halfscope-cli " << command << ": interrupted; nothing more was written\n";
    return kExitInterrupted;
}

}  // namespace

int main(int argc, char** argv) {
    hs::ensurePassiveOmpWait(argc, argv);
    using namespace hs::cli;
    // Names, labels and paths read from files are printed in many places: escape control
    // characters in all of them (io/terminal_text.h).
    filterTerminalOutput();
    std::vector<std::string> rest(argv + 1, argv + argc);
    if (rest.empty() || rest[0] == "--help" || rest[0] == "-h" || rest[0] == "help") {
        printUsage(rest.empty() ? std::cerr : std::cout);
        return rest.empty() ? kExitUsage : kExitOk;
    }
    const Command* cmd = nullptr;
    for (const auto& c : commands())
        if (rest[0] == c.name) cmd = &c;
    if (!cmd) {
        std::cerr << "halfscope-cli: unknown command '" << hs::printable(rest[0]) << "'\n\n";
        printUsage(std::cerr);
        return kExitUsage;
    }
    std::vector<std::string> sub(rest.begin() + 1, rest.end());
    if (std::find(sub.begin(), sub.end(), "--help") != sub.end() ||
        std::find(sub.begin(), sub.end(), "-h") != sub.end()) {
        std::cout << cmd->help;
        return kExitOk;
    }
    try {
        auto flags = cmd->flags;
        flags.push_back("json");
        flags.push_back("quiet");
        Args args(sub, flags);
        try {
            hs::configureRuntime(args.getInt("threads", 0));
        } catch (const std::invalid_argument& e) {
            throw UsageError(e.what());
        }
        if (auto m = args.get("cpu-bf16")) {
            const auto mode = hs::parseCpuBf16(*m);
            if (!mode)
                throw UsageError("--cpu-bf16 must be emulated, native or auto, got '" + *m + "'");
            hs::setCpuBf16Mode(*mode);
        }
        std::signal(SIGINT, onInterrupt);
        std::signal(SIGTERM, onInterrupt);
#ifdef SIGBREAK
        // Windows: the C runtime turns Ctrl-Break into SIGBREAK (Ctrl-C is SIGINT there too). It
        // resets a handler to the default before calling it, so there a second Ctrl-C or
        // Ctrl-Break ends the process at once without reaching onInterrupt's raise.
        std::signal(SIGBREAK, onInterrupt);
#endif
        const hs::CancelScope interruptible(&g_interrupted);
        const std::string name = cmd->name;
        std::optional<StderrLoadProgress> loading;
        std::optional<StderrWorkProgress> working;  // stages, streamed blocks, trials, estimate
        if (!args.has("quiet") &&
            (name == "generate" || name == "compare" || name == "bisect" || name == "reproduce")) {
            loading.emplace();
            working.emplace();
        }
        int status = kExitOk;
        try {
            status = cmd->run(args);
        } catch (const std::exception& e) {
            // Out of memory, on a GPU or the CPU: the numbers and the ways out, not a bare error.
            if (!hs::isOutOfMemory(e) || g_interrupted) throw;
            throw std::runtime_error(outOfMemoryText(args, e.what()));
        }
        return g_interrupted ? interrupted(cmd->name) : status;
    } catch (const UsageError& e) {
        std::cerr << "halfscope-cli " << cmd->name << ": " << e.what() << "\n"
                  << "try 'halfscope-cli " << cmd->name << " --help'\n";
        return kExitUsage;
    } catch (const std::exception& e) {
        // Cancelled, or what a cut-short run led to (e.g. "no image").
        if (g_interrupted) return interrupted(cmd->name);
        // An error's message quotes file names and keys: one line per message line, escaped.
        std::cerr << "halfscope-cli " << cmd->name << ": error: " << hs::printableText(e.what())
                  << "\n";
        return kExitUsage;
    }
}
