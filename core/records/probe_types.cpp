#include "records/probe_types.h"

namespace hs {

std::string probeLevelName(ProbeLevel l) {
    switch (l) {
        case ProbeLevel::Off:
            return "off";
        case ProbeLevel::Module:
            return "module";
        case ProbeLevel::Layer:
            return "layer";
        case ProbeLevel::Op:
            return "op";
    }
    return "?";
}

std::optional<ProbeLevel> parseProbeLevel(const std::string& t) {
    if (t == "off") return ProbeLevel::Off;
    if (t == "module") return ProbeLevel::Module;
    if (t == "layer") return ProbeLevel::Layer;
    if (t == "op") return ProbeLevel::Op;
    return std::nullopt;
}

}  // namespace hs
