#include "report/csv_report.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "diagnosis/blocks.h"
#include "diagnosis/run_timeline.h"
#include "io/atomic_file.h"

namespace hs {

namespace {

std::string number(double v) {
    if (!std::isfinite(v)) return "";
    char b[40];
    std::snprintf(b, sizeof b, "%.10g", v);
    return b;
}

void stats(std::ostringstream& o, const TensorStats& s) {
    o << ',' << s.count << ',' << s.finite << ',' << number(s.min) << ',' << number(s.max) << ','
      << number(s.absMax) << ',' << number(s.mean) << ',' << number(s.std) << ',' << s.nan << ','
      << s.posInf << ',' << s.negInf << ',' << s.overFp16 << ',' << s.subnormalFp16;
}

const char* kStatNames[] = {"count", "finite", "min",     "max",     "abs_max",   "mean",
                            "std",   "nan",    "pos_inf", "neg_inf", "over_fp16", "subnormal_fp16"};

}  // namespace

std::string csvField(const std::string& s) {
    // A text cell that a spreadsheet would read as a formula (=, +, -, @, or a tab or carriage
    // return before one) gets a leading ' and quotes (OWASP CSV injection). Only text cells come
    // here: labels, probe names and blocks read from models and files; numbers are written by
    // number() and the integer columns as they are, so a negative number stays a number.
    const bool formula = !s.empty() && std::strchr("=+-@\t\r", s[0]) != nullptr;
    if (!formula && s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string q = formula ? "\"'" : "\"";
    for (char c : s) {
        if (c == '"') q += '"';
        q += c;
    }
    return q + '"';
}

std::string stepsCsv(const Report& report) {
    std::ostringstream o;
    o << "run,label,step,sigma,timestep,seconds";
    for (const char* x : {"latent", "velocity", "denoised"})
        for (const char* s : kStatNames) o << ',' << x << '_' << s;
    o << '\n';
    for (size_t i = 0; i < report.runs.size(); ++i)
        for (const auto& st : report.runs[i].record.steps) {
            o << i << ',' << csvField(report.runs[i].label) << ',' << st.step << ','
              << number(st.sigma) << ',' << number(st.timestep) << ',' << number(st.seconds);
            stats(o, st.latent);
            stats(o, st.velocity);
            stats(o, st.denoised);
            o << '\n';
        }
    return o.str();
}

std::string layersCsv(const Report& report) {
    std::ostringstream o;
    o << "run,label,index,name,block,component,stage,step,granularity,format,execution";
    for (const char* s : kStatNames) o << ',' << s;
    o << ",headroom_bits\n";
    for (size_t i = 0; i < report.runs.size(); ++i) {
        const RunRecord& rec = report.runs[i].record;
        const std::string label = csvField(report.runs[i].label);
        for (const auto& e : runTimeline(rec)) {
            if (e.kind != TimelineEntry::Kind::Probe) continue;
            const ProbeRecord& p = rec.probes[e.probeIndex];
            o << i << ',' << label << ',' << e.probeIndex << ',' << csvField(p.name) << ','
              << csvField(blockOf(p.name)) << ',' << csvField(componentOf(p.name)) << ','
              << (p.step >= 0   ? "step"
                  : e.afterLoop ? "decode"
                                : "text")
              << ',' << p.step << ',' << probeLevelName(p.granularity) << ','
              << formatName(p.format) << ',' << executionName(p.execution);
            stats(o, p.stats);
            o << ',' << number(fp16HeadroomBits(p.stats.absMax)) << '\n';
        }
    }
    return o.str();
}

void writeStepsCsv(const std::string& path, const Report& report) {
    const std::string t = stepsCsv(report);
    writeFileAtomically(path, t.data(), t.size());
}

void writeLayersCsv(const std::string& path, const Report& report) {
    const std::string t = layersCsv(report);
    writeFileAtomically(path, t.data(), t.size());
}

}  // namespace hs
