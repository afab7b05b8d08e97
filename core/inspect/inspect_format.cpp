// JSON and text renderings of an InspectReport (inspect/inspect.h).
#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "inspect/inspect.h"
#include "io/terminal_text.h"

namespace hs {

namespace {

nlohmann::json countsJson(const RangeCounts& c) {
    return {{"overflow", c.overflow}, {"underflow", c.underflow}, {"subnormal", c.subnormal}};
}

nlohmann::json moduleJson(const ModuleSummary& m) {
    nlohmann::json j = {{"name", m.name},
                        {"tensors", m.tensors},
                        {"parameters", m.parameters},
                        {"checked", m.checked},
                        {"nonFinite", m.nonFinite},
                        {"fp16", countsJson(m.fp16)},
                        {"bf16", countsJson(m.bf16)}};
    j["absMax"] = m.checked > m.nonFinite ? nlohmann::json(m.absMax) : nlohmann::json(nullptr);
    return j;
}

std::string human(double n) {
    char buf[32];
    if (n >= 1e9)
        std::snprintf(buf, sizeof buf, "%.2fG", n / 1e9);
    else if (n >= 1e6)
        std::snprintf(buf, sizeof buf, "%.2fM", n / 1e6);
    else if (n >= 1e4)
        std::snprintf(buf, sizeof buf, "%.1fk", n / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.0f", n);
    return buf;
}

std::string bytesText(uint64_t b) {
    char buf[32];
    if (b >= (1ull << 30))
        std::snprintf(buf, sizeof buf, "%.2f GiB", b / double(1ull << 30));
    else if (b >= (1ull << 20))
        std::snprintf(buf, sizeof buf, "%.1f MiB", b / double(1ull << 20));
    else if (b >= 1024)
        std::snprintf(buf, sizeof buf, "%.1f KiB", b / 1024.0);
    else
        std::snprintf(buf, sizeof buf, "%" PRIu64 " B", b);
    return buf;
}

std::string percent(double fraction) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", 100.0 * fraction);
    return buf;
}

std::string pad(const std::string& s, size_t w, bool right = true) {
    if (s.size() >= w) return s;
    return right ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

std::string absMaxText(const ModuleSummary& m) {
    if (m.checked <= m.nonFinite) return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", m.absMax);
    return buf;
}

// A sentence on what storing the component in fp16 / bf16 would do.
std::string verdict(const ComponentSummary& c) {
    const ModuleSummary& t = c.total;
    std::ostringstream os;
    if (t.nonFinite > 0) os << "  ! " << t.nonFinite << " stored weights are already NaN/Inf.\n";
    if (t.fp16.overflow > 0) {
        os << "  ! fp16: " << t.fp16.overflow << " weights would overflow to Inf (in";
        for (const auto& m : c.modules)
            if (m.fp16.overflow) os << " " << printable(m.name);
        os << "): this component cannot be stored in fp16 as is.\n";
    } else if (t.checked > 0) {
        os << "  fp16: no weight overflows";
        if (t.fp16.underflow)
            os << "; " << t.fp16.underflow << " ("
               << percent(double(t.fp16.underflow) / double(t.checked))
               << "%) tiny weights would become 0";
        os << ".\n";
    }
    if (t.bf16.overflow > 0)
        os << "  ! bf16: " << t.bf16.overflow << " weights would overflow to Inf.\n";
    return os.str();
}

nlohmann::json singleFileJson(const SingleFileSummary& s) {
    nlohmann::json j = {
        {"layouts", s.layouts}, {"not_converted", s.notConverted}, {"ignored", s.ignored}};
    j["components"] = nlohmann::json::array();
    for (const auto& c : s.components)
        j["components"].push_back(
            {{"slot", c.slot}, {"class", c.className}, {"description", c.description}});
    if (!s.error.empty()) j["error"] = s.error;
    if (!s.headline.empty()) j["headline"] = s.headline;
    return j;
}

// What the single-file layouts make of a file, after its tensor table.
std::string singleFileText(const SingleFileSummary& s) {
    std::ostringstream os;
    os << "\nSingle-file layout:";
    if (s.layouts.empty() && s.error.empty()) {
        os << " none recognised (a diffusers/transformers folder's weights file is inspected in "
              "its folder)\n";
        return os.str();
    }
    os << "\n";
    for (const auto& c : s.components)
        os << "  " << c.slot << ": " << c.className << " - " << printableText(c.description)
           << "\n";
    for (const auto& n : s.notConverted) os << "  " << printableText(n) << "\n";
    if (!s.error.empty()) os << "  ! does not convert: " << printableText(s.error) << "\n";
    if (!s.ignored.empty()) {
        os << "  " << s.ignored.size() << " tensors belong to no layout and are not loaded:";
        for (size_t i = 0; i < s.ignored.size() && i < 5; ++i) os << " " << printable(s.ignored[i]);
        if (s.ignored.size() > 5) os << " ...";
        os << "\n";
    }
    return os.str();
}

}  // namespace

nlohmann::json toJson(const InspectReport& r) {
    nlohmann::json j = {{"path", r.path}, {"kind", r.kind}, {"class", r.className}};
    j["components"] = nlohmann::json::array();
    for (const auto& c : r.components) {
        nlohmann::json cj = {
            {"name", c.name}, {"kind", c.kind}, {"class", c.className}, {"path", c.path}};
        if (!c.error.empty()) {
            cj["error"] = c.error;
        } else if (c.kind == "model") {
            cj["variant"] = c.variant;
            cj["files"] = c.weightFiles;
            cj["tensors"] = c.tensors;
            cj["parameters"] = c.parameters;
            cj["bytes"] = c.bytes;
            nlohmann::json dt = nlohmann::json::object();
            for (const auto& [name, n] : c.dtypes)
                dt[name] = {{"tensors", n.tensors}, {"parameters", n.parameters}};
            cj["dtypes"] = dt;
            cj["modules"] = nlohmann::json::array();
            for (const auto& m : c.modules) cj["modules"].push_back(moduleJson(m));
            cj["total"] = moduleJson(c.total);
            if (c.scaledWeights > 0 || !c.inputScales.empty())
                cj["scaled_fp8"] = {{"scaled_weights", c.scaledWeights},
                                    {"scale_input", c.inputScales}};
        }
        j["components"].push_back(cj);
    }
    if (r.singleFile.examined) j["single_file"] = singleFileJson(r.singleFile);
    return j;
}

// Names, paths and classes below come from the files: each is escaped (io/terminal_text.h), so a
// crafted tensor name cannot clear the screen or start a new line of its own.
std::string formatReport(const InspectReport& r) {
    std::ostringstream os;
    os << printable(r.path) << ": " << r.kind;
    if (!r.className.empty()) os << " " << printable(r.className);
    os << "\n";
    if (!r.singleFile.headline.empty())
        os << "Single file: " << printable(r.singleFile.headline) << "\n";
    bool anyModel = false;
    for (const auto& c : r.components) anyModel |= c.kind == "model";
    if (anyModel)
        os << "(fp16 / bf16 columns: stored weights that would overflow to Inf, become 0, or "
              "become subnormal if stored in that format)\n";
    for (const auto& c : r.components) {
        os << "\n[" << printable(c.name) << "] " << c.kind;
        if (!c.className.empty()) os << " " << printable(c.className);
        if (!c.error.empty()) {
            os << "\n  ! cannot read: " << printableText(c.error) << "\n";
            continue;
        }
        if (c.kind != "model") {
            os << "\n";
            continue;
        }
        if (!c.variant.empty()) os << " (variant " << printable(c.variant) << ")";
        os << "\n  files: ";
        for (size_t i = 0; i < c.weightFiles.size(); ++i)
            os << (i ? ", " : "") << printable(c.weightFiles[i]);
        os << "\n  " << c.tensors << " tensors, " << human(double(c.parameters)) << " parameters, "
           << bytesText(c.bytes) << "\n  dtypes:";
        for (const auto& [name, n] : c.dtypes)
            os << " " << printable(name) << " x" << n.tensors << " (" << human(double(n.parameters))
               << ")";
        os << "\n";
        size_t w = 6;
        for (const auto& m : c.modules) w = std::max(w, printable(m.name).size());
        w += 2;
        os << "  " << pad("module", w, false) << pad("tensors", 8) << pad("params", 10)
           << pad("|max|", 11) << pad("NaN/Inf", 8) << " | fp16" << pad("overflow", 9)
           << pad("to zero", 9) << pad("subnorm", 10) << " | bf16" << pad("overflow", 9)
           << pad("to zero", 9) << "\n";
        auto row = [&](const ModuleSummary& m) {
            os << "  " << pad(printable(m.name), w, false) << pad(std::to_string(m.tensors), 8)
               << pad(human(double(m.parameters)), 10) << pad(absMaxText(m), 11)
               << pad(std::to_string(m.nonFinite), 8) << " |     "
               << pad(std::to_string(m.fp16.overflow), 9)
               << pad(std::to_string(m.fp16.underflow), 9)
               << pad(std::to_string(m.fp16.subnormal), 10) << " |     "
               << pad(std::to_string(m.bf16.overflow), 9)
               << pad(std::to_string(m.bf16.underflow), 9) << "\n";
        };
        for (const auto& m : c.modules) row(m);
        row(c.total);
        if (c.scaledWeights > 0 || !c.inputScales.empty()) {
            os << "  scaled fp8: " << c.scaledWeights
               << " weights checked times their scale_weight";
            if (!c.inputScales.empty())
                os << "; " << c.inputScales.size() << " scale_input (not applied), e.g. "
                   << printable(c.inputScales.begin()->first) << " "
                   << c.inputScales.begin()->second;
            os << "\n";
        }
        os << verdict(c);
    }
    if (r.singleFile.examined) os << singleFileText(r.singleFile);
    return os.str();
}

}  // namespace hs
