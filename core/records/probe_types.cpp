#include "records/probe_types.h"

#include "base/enum_names.h"

namespace hs {

namespace {
constexpr EnumName<ProbeLevel> kProbeLevelNames[] = {{ProbeLevel::Off, "off"},
                                                     {ProbeLevel::Module, "module"},
                                                     {ProbeLevel::Layer, "layer"},
                                                     {ProbeLevel::Op, "op"}};
}  // namespace

std::string probeLevelName(ProbeLevel l) {
    return nameIn(kProbeLevelNames, l);
}

std::optional<ProbeLevel> parseProbeLevel(const std::string& t) {
    return valueNamed(kProbeLevelNames, t);
}

}  // namespace hs
