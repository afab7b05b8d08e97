#include "models/run_component.h"

#include <chrono>

#include "io/model_folder.h"

namespace hs {

ComponentRun runComponentFolder(const std::string& dir, const NamedTensors& inputs,
                                const ComponentRunOptions& o) {
    const ComponentFolder folder = openComponent(dir);
    const auto family =
        FamilyRegistry::global().require(folder.className, folder.dir + "/config.json");
    ComponentRun r;
    r.component = family->defaultComponent;
    r.className = folder.className;
    r.familyName = family->name;
    r.plan = effectivePlan({{r.component, o.precision.value_or(storedFormatOf(folder.weights))}},
                           o.rules);
    const PrecisionPolicy policy(r.plan, o.device);
    r.execution = policy.executionFor(r.component);

    ComponentSource source{folder.dir, folder.config, weightMapOf(folder.weights)};
    auto component = loadComponent(*family, source, policy, r.component);
    torch::NoGradGuard noGrad;
    ProbeContext probes(policy, o.level);
    r.outputs = component->run(inputs, probes);
    r.firstNonFinite = probes.firstNonFinite();
    for (int i = 0; i < o.repeat; ++i) {
        ProbeContext p(policy, o.level);
        const auto t0 = std::chrono::steady_clock::now();
        component->run(inputs, p);
        r.timesMs.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
    }
    return r;
}

}  // namespace hs
