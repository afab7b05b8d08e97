#include "models/run_component.h"

#include <chrono>

#include "io/model_folder.h"
#include "models/opened_component.h"
#include "runtime/device_sync.h"

namespace hs {

ComponentRun runComponentFolder(const std::string& dir, const NamedTensors& inputs,
                                const ComponentRunOptions& o) {
    std::string slot;
    const OpenedComponent opened = openComponentAt(dir, o.part, &slot);
    const ComponentSource& source = opened.source;
    const auto family = FamilyRegistry::global().require(
        opened.className, source.dir + (slot.empty() ? "/config.json" : ""));
    ComponentRun r;
    r.component = slot.empty() ? family->defaultComponent : slot;
    r.className = opened.className;
    r.familyName = family->name;
    r.description = opened.description;
    r.plan = effectivePlan({{r.component, o.precision.value_or(storedFormatOf(source.weights))}},
                           o.rules);
    const PrecisionPolicy policy(r.plan, o.device);
    r.execution = policy.executionFor(r.component);

    auto component = loadComponent(*family, source, policy, r.component);
    torch::NoGradGuard noGrad;
    ProbeContext probes(policy, o.level);
    r.outputs = component->run(inputs, probes);
    for (auto& kv : r.outputs) kv.second = kv.second.to(torch::kCPU);  // for the file and stats
    r.firstNonFinite = probes.firstNonFinite();
    for (int i = 0; i < o.repeat; ++i) {
        ProbeContext p(policy, o.level);
        const auto t0 = std::chrono::steady_clock::now();
        component->run(inputs, p);
        synchronizeDevice(o.device);  // a GPU's time for the forward, not for its launches
        r.timesMs.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
    }
    return r;
}

}  // namespace hs
