#pragma once
// A scheduler class built from its config: `Config` (a DiscreteSchedule with diffusers' class
// name as Config::kClass) is kept and answers className() and predictionType(); `Base` is
// Scheduler or the part of a scheduler family it shares (AlphaScheduler, SigmaScheduler).
#include <string>
#include <utility>

#include "sampling/scheduler.h"

namespace hs {

template <class Config, class Base = Scheduler>
class ConfiguredScheduler : public Base {
public:
    std::string className() const override { return Config::kClass; }
    std::string predictionType() const override { return m_config.predictionType; }
    const Config& config() const { return m_config; }

protected:
    // `baseArgs` go to Base's constructor, built before m_config (they may refer into `c`).
    template <class... BaseArgs>
    explicit ConfiguredScheduler(const Config& c, BaseArgs&&... baseArgs)
        : Base(std::forward<BaseArgs>(baseArgs)...), m_config(c) {}

    Config m_config;
};

}  // namespace hs
