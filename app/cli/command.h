#pragma once
// Sub-commands of halfscope-cli and the small argument parser they share.
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hs::cli {

// Exit codes: scripts test for them. The status is the verdict's: a run whose image is fine
// exits 0 or 3, one whose image is not exits 1, and --json carries the same number.
constexpr int kExitOk = 0;
constexpr int kExitNonFinite = 1;  // the run produced NaN/Inf or a black image
constexpr int kExitUsage = 2;      // usage or input errors
// The image is fine (verdict "ok"), but a NaN/Inf appeared inside the run and was contained
// (clipped by a clamp rule, kept in range by scale, or it never reached the image). Not 0: the
// plan worked only because something held an overflow back, which a script checking fp16 safety
// must see; not 1: the picture is usable.
constexpr int kExitContained = 3;

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// --name value / --name=value / --flag; everything else is positional.
class Args {
public:
    Args(const std::vector<std::string>& argv, const std::vector<std::string>& flags);
    bool has(const std::string& name) const { return m_opts.count(name) > 0; }
    std::optional<std::string> get(const std::string& name) const;
    std::vector<std::string> all(const std::string& name) const;  // repeated options
    std::string require(const std::string& name) const;
    int getInt(const std::string& name, int fallback) const;
    double getDouble(const std::string& name, double fallback) const;
    const std::vector<std::string>& positional() const { return m_positional; }
    // Rejects options not in `known` nor global (--threads, --cpu-bf16): a typo must not
    // silently fall back to a default.
    void allowOnly(const std::vector<std::string>& known) const;

private:
    std::multimap<std::string, std::string> m_opts;
    std::vector<std::string> m_positional;
};

struct Command {
    const char* name;
    const char* summary;
    std::string help;  // full usage text
    int (*run)(const Args& args);
    std::vector<std::string> flags;  // options that take no value
};

// Each cmd_*.cpp registers itself through a static Registrar.
std::vector<Command>& commands();
struct Registrar {
    explicit Registrar(Command c) { commands().push_back(std::move(c)); }
};

}  // namespace hs::cli
