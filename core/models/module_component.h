#pragma once
// One template for a family's plumbing. A family declares its component as
//   class XComponent : public ModuleComponent<XComponent, XModel, &runX[, RoleBase]> {...}
// (adding only its role's methods) and its registration as
//   Family xFamily() { return makeFamily<XComponent>({name, classes, role, slot, io}, makeModel); }
// and gets module(), run(), streamedBlocks(), the strategies' `XComponent::in(components, slot)`
// and Family::build from them.
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "models/common/named_tensors.h"
#include "models/registry.h"
#include "models/roles.h"

namespace hs {

// `Model` is a LibTorch module holder (FluxTransformer, ClipTextModel, ...); `Run` maps
// run-module's "in.*" tensors to its "out.*" tensors: NamedTensors (*)(Model& or Self&, const
// NamedTensors&, ProbeContext&). `Base` is the role (Component, TextEncoderComponent,
// VaeComponent). `Self` is the family's own class, which `in()` returns.
template <class Self, class Model, auto Run, class Base = Component>
class ModuleComponent : public Base {
public:
    using ModelType = Model;

    explicit ModuleComponent(Model m) : model(std::move(m)) {}

    torch::nn::Module& module() override { return *model; }
    // Run takes the model, or the component itself (a role's run-module form, runTextEncoder).
    NamedTensors run(const NamedTensors& inputs, ProbeContext& probes) override {
        if constexpr (std::is_invocable_v<decltype(Run), Self&, const NamedTensors&, ProbeContext&>)
            return Run(static_cast<Self&>(*this), inputs, probes);
        else
            return Run(model, inputs, probes);
    }
    // A model whose blocks stream (its Impl is a StreamedBlocks) streams; others load whole.
    StreamedBlocks* streamedBlocks() override {
        if constexpr (std::is_base_of_v<StreamedBlocks, typename Model::ContainedType>)
            return model.get();
        else
            return nullptr;
    }

    // This family's component in `slot`, for the strategy that drives it: null when the slot is
    // empty, PipelineError "the 'slot' component is not <kind>" when another family's is there.
    static Self* in(const ComponentMap& components, const std::string& slot) {
        FamilyRegistry::global();  // registering the families names the kinds
        return componentOfKindIn<Self>(components, slot, kind());
    }
    // "a model of the family 'Flux transformer' (FluxTransformer2DModel)"; set by makeFamily.
    static std::string& kind() {
        static std::string k = "a model of this family";
        return k;
    }

    Model model;
};

// A VAE family whose module decodes and encodes images itself (Model::decode(z, probes),
// Model::encode(image, probes) -> VaeMoments); Self adds the latent space's sizes and scaling.
template <class Self, class Model>
class VaeModuleComponent : public ModuleComponent<Self, Model, runVae, VaeComponent> {
public:
    using ModuleComponent<Self, Model, runVae, VaeComponent>::ModuleComponent;
    torch::Tensor decode(const torch::Tensor& z, ProbeContext& probes) override {
        return this->model->decode(z, probes);
    }
    VaeMoments encode(const torch::Tensor& image, ProbeContext& probes) override {
        return this->model->encode(image, probes);
    }
};

// A text encoder family: the module plumbing and run-module through runTextEncoder
// (models/roles.h); Self encodes with a mask and says its width and token table.
template <class Self, class Model>
class TextModuleComponent
    : public ModuleComponent<Self, Model, runTextEncoder, TextEncoderComponent> {
public:
    using ModuleComponent<Self, Model, runTextEncoder, TextEncoderComponent>::ModuleComponent;
};

// What a family says of itself (the rest of Family is derived or added after makeFamily).
struct FamilyHead {
    std::string name;                     // for messages and --help
    std::vector<std::string> classNames;  // "_class_name" / "architectures" values it loads
    Role role = Role::Other;
    std::string defaultComponent;           // its usual key in model_index.json
    std::string io;                         // run-module's keys: "in.x -> out.y"
    std::vector<std::string> blockStems{};  // see Family::blockStems
};

// The Family of component class `C`; `makeModel(source, component)` returns C's model built from
// source.config (every size bounded, ConfigError otherwise) with probe paths under `component`,
// or anything C is constructible from.
template <class C, class MakeModel>
Family makeFamily(FamilyHead head, MakeModel makeModel) {
    std::string classes;
    for (const std::string& c : head.classNames) classes += (classes.empty() ? "" : ", ") + c;
    C::kind() = "a model of the family '" + head.name + "' (" + classes + ")";
    Family f;
    f.name = std::move(head.name);
    f.classNames = std::move(head.classNames);
    f.role = head.role;
    f.defaultComponent = std::move(head.defaultComponent);
    f.io = std::move(head.io);
    f.blockStems = std::move(head.blockStems);
    f.build = [makeModel](const ComponentSource& source,
                          const std::string& component) -> std::shared_ptr<Component> {
        return std::make_shared<C>(makeModel(source, component));
    };
    return f;
}

// The family of a model whose config type reads itself (`Config::fromJson`) and whose module
// is built as Model(config, component).
template <class C, class Config>
Family makeFamily(FamilyHead head) {
    return makeFamily<C>(std::move(head), [](const ComponentSource& s, const std::string& c) {
        return typename C::ModelType(Config::fromJson(s.config), c);
    });
}

// run() of a model whose forward(inputs, probes) gives one tensor: `inputsFrom(config, inputs,
// device)` parses and checks run-module's tensors, the output is `OutKey` in float32 on the
// device of `probes`, computed without autograd.
inline constexpr char kOutSample[] = "out.sample";
template <class Model, auto InputsFrom, const char* OutKey = kOutSample>
NamedTensors runForward(Model& model, const NamedTensors& inputs, ProbeContext& probes) {
    torch::NoGradGuard noGrad;
    auto in = InputsFrom(model->config(), inputs, probes.device());
    NamedTensors out;
    out[OutKey] = model->forward(in, probes).to(torch::kFloat32);
    return out;
}

}  // namespace hs
