#include "report/record_json.h"

#include <cmath>
#include <cstring>

#include "io/image_io.h"
#include "report/base64.h"
#include "report/json_in.h"
#include "report/message_json.h"

namespace hs {

using json_in::Node;
using json_in::numberOrNull;
using nlohmann::ordered_json;

namespace {

Format formatFrom(const Node& n) {
    const std::string s = n.string();
    auto f = parseFormat(s);
    if (!f) n.fail("unknown format \"" + s + "\" (expected fp32, bf16, fp16 or tf32)");
    return *f;
}

Role roleFrom(const Node& n) {
    const std::string s = n.string();
    if (auto r = parseRole(s)) return *r;
    n.fail("unknown role \"" + s + "\"");
}

Execution executionFrom(const Node& n) {
    const std::string s = n.string();
    if (s == "native") return Execution::Native;
    if (s == "emulated") return Execution::Emulated;
    n.fail("unknown execution \"" + s + "\" (expected native or emulated)");
}

ProbeLevel levelFrom(const Node& n) {
    const std::string s = n.string();
    auto l = parseProbeLevel(s);
    if (!l) n.fail("unknown probe level \"" + s + "\" (expected off, module, layer or op)");
    return *l;
}

std::vector<uint8_t> bytesFrom(const Node& n) {
    try {
        return base64Decode(n.string());
    } catch (const std::invalid_argument& e) {
        n.fail(e.what());
    }
}

Image decodeFrom(const Node& n, int channels) {
    const auto bytes = bytesFrom(n);
    try {
        return decodeImage(bytes.data(), bytes.size(), channels, n.path());
    } catch (const std::exception& e) {
        throw ReportFormatError(e.what());
    }
}

TensorStats statsFrom(const Node& n) {
    TensorStats s;
    s.count = n["count"].integer();
    s.finite = n["finite"].integer();
    s.min = n["min"].number();
    s.max = n["max"].number();
    s.absMax = n["abs_max"].number();
    s.mean = n["mean"].number();
    s.std = n["std"].number();
    s.nan = n["nan"].integer();
    s.posInf = n["pos_inf"].integer();
    s.negInf = n["neg_inf"].integer();
    s.overFp16 = n["over_fp16"].integer();
    s.subnormalFp16 = n["subnormal_fp16"].integer();
    return s;
}

ProbeRecord probeFrom(const Node& n) {
    ProbeRecord p;
    p.name = n["name"].string();
    p.granularity = levelFrom(n["granularity"]);
    p.step = n["step"].intValue();
    p.format = formatFrom(n["format"]);
    p.execution = executionFrom(n["execution"]);
    p.stats = statsFrom(n["stats"]);
    return p;
}

PreviewImage previewFrom(const Node& n) {
    PreviewImage p;
    p.width = n["width"].intValue();
    p.height = n["height"].intValue();
    p.step = n["step"].intValue();
    p.fullDecode = n["full_decode"].boolean();
    if (n.has("projection")) p.projection = n["projection"].string();  // absent before it was kept
    if (n.has("png")) {
        Image img = decodeFrom(n["png"], 3);
        if (img.width != p.width || img.height != p.height)
            n.fail("png is " + std::to_string(img.width) + "x" + std::to_string(img.height) +
                   ", the record says " + std::to_string(p.width) + "x" + std::to_string(p.height));
        p.rgb = std::move(img.pixels);
    }
    if (n.has("non_finite_png")) {
        Image mask = decodeFrom(n["non_finite_png"], 1);
        if (mask.width != p.width || mask.height != p.height)
            n.fail("non_finite_png does not match the image size");
        p.nonFinite = std::move(mask.pixels);
    }
    return p;
}

std::optional<PreviewImage> optionalPreview(const Node& parent, const char* key) {
    if (!parent.has(key)) return std::nullopt;
    return previewFrom(parent[key]);
}

}  // namespace

ordered_json statsToJson(const TensorStats& s) {
    return ordered_json{{"count", s.count},
                        {"finite", s.finite},
                        {"min", numberOrNull(s.min)},
                        {"max", numberOrNull(s.max)},
                        {"abs_max", numberOrNull(s.absMax)},
                        {"mean", numberOrNull(s.mean)},
                        {"std", numberOrNull(s.std)},
                        {"nan", s.nan},
                        {"pos_inf", s.posInf},
                        {"neg_inf", s.negInf},
                        {"over_fp16", s.overFp16},
                        {"subnormal_fp16", s.subnormalFp16}};
}

ordered_json probeToJson(const ProbeRecord& p) {
    return ordered_json{{"name", p.name},
                        {"granularity", probeLevelName(p.granularity)},
                        {"step", p.step},
                        {"format", formatName(p.format)},
                        {"execution", executionName(p.execution)},
                        {"stats", statsToJson(p.stats)}};
}

ordered_json previewToJson(const PreviewImage& p) {
    ordered_json j{
        {"width", p.width}, {"height", p.height}, {"step", p.step}, {"full_decode", p.fullDecode}};
    if (!p.projection.empty()) j["projection"] = p.projection;
    const size_t pixels = size_t(std::max(p.width, 0)) * size_t(std::max(p.height, 0));
    if (pixels > 0 && p.rgb.size() == pixels * 3) {
        Image img{p.width, p.height, 3, p.rgb};
        j["png"] = base64Encode(encodePng(img));
    } else {
        j["png"] = nullptr;
    }
    if (pixels > 0 && p.nonFinite.size() == pixels) {
        Image mask{p.width, p.height, 1, p.nonFinite};
        j["non_finite_png"] = base64Encode(encodePng(mask));
    } else {
        j["non_finite_png"] = nullptr;
    }
    return j;
}

ordered_json runRecordToJson(const RunRecord& r, const RecordJsonOptions& o) {
    const RunConfig& c = r.config;
    ordered_json config{
        {"model_dir", c.modelDir},
        {"prompt", c.prompt},
        {"negative_prompt", c.negativePrompt},
        {"seed", c.seed},
        {"steps", c.steps},
        {"guidance", numberOrNull(c.guidance)},
        {"width", c.width},
        {"height", c.height},
        {"shift", c.shift ? numberOrNull(*c.shift) : ordered_json(nullptr)},
        {"max_shift", c.maxShift ? numberOrNull(*c.maxShift) : ordered_json(nullptr)},
        {"base_shift", c.baseShift ? numberOrNull(*c.baseShift) : ordered_json(nullptr)},
        {"scheduler", c.scheduler},
        {"prediction_type", c.predictionType},
        {"comfy_sampler", c.comfySampler},
        {"comfy_scheduler", c.comfyScheduler},
        {"plan", c.plan.toString()},
        {"device", c.device},
        {"probe_level", probeLevelName(c.probeLevel)},
        {"decode_every", c.decodeEvery},
        {"keep_latents", c.keepLatents}};
    if (!c.modelFiles.empty())
        for (const auto& s : modelFileSlots())
            if (!(c.modelFiles.*s.path).empty())
                config["model_files"][s.slot] = c.modelFiles.*s.path;
    ordered_json components = ordered_json::array();
    for (const auto& x : r.components)
        components.push_back({{"name", x.name},
                              {"role", roleName(x.role)},
                              {"class_name", x.className},
                              {"stored_dtype", x.storedDtype},
                              {"parameters", x.parameters},
                              {"format", formatName(x.format)},
                              {"execution", executionName(x.execution)},
                              {"streamed", x.streamed}});
    ordered_json steps = ordered_json::array();
    for (const auto& s : r.steps) {
        ordered_json js{{"step", s.step},
                        {"sigma", numberOrNull(s.sigma)},
                        {"timestep", numberOrNull(s.timestep)},
                        {"latent", statsToJson(s.latent)},
                        {"velocity", statsToJson(s.velocity)},
                        {"denoised", statsToJson(s.denoised)},
                        {"seconds", numberOrNull(s.seconds)}};
        if (o.latentValues && !s.latentValues.empty()) {
            std::vector<uint8_t> bytes(s.latentValues.size() * sizeof(float));
            std::memcpy(bytes.data(), s.latentValues.data(), bytes.size());
            js["latent_values_f32"] = base64Encode(bytes);
        } else {
            js["latent_values_f32"] = nullptr;
        }
        steps.push_back(std::move(js));
    }
    ordered_json probes = ordered_json::array();
    for (const auto& p : r.probes) probes.push_back(probeToJson(p));
    ordered_json first = nullptr;
    if (r.firstNonFinite) {
        first = {{"index", r.firstNonFinite->index},
                 {"at", probeToJson(r.firstNonFinite->at)},
                 {"input", r.firstNonFinite->input ? probeToJson(*r.firstNonFinite->input)
                                                   : ordered_json(nullptr)}};
    }
    ordered_json previews = ordered_json::array();
    if (o.images)
        for (const auto& p : r.previews) previews.push_back(previewToJson(p));
    auto optImage = [&](const std::optional<PreviewImage>& p) {
        return o.images && p ? previewToJson(*p) : ordered_json(nullptr);
    };
    // Unknown parts (-1) are written as null.
    auto known = [](double v) { return v >= 0 ? ordered_json(v) : ordered_json(nullptr); };
    const ordered_json estimate =
        r.estimate ? ordered_json{{"seconds", known(r.estimate->seconds)},
                                  {"bytes", known(r.estimate->bytes)},
                                  {"weight_bytes", known(r.estimate->weightBytes)},
                                  {"activation_bytes", known(r.estimate->activationBytes)}}
                   : ordered_json(nullptr);
    return ordered_json{{"config", config},
                        {"effective_plan", r.effectivePlan},
                        {"components", components},
                        {"steps", steps},
                        {"probes", probes},
                        {"first_non_finite", first},
                        {"text_embedding", statsToJson(r.textEmbedding)},
                        {"image", statsToJson(r.image)},
                        {"final_image", optImage(r.finalImage)},
                        {"saved_image", optImage(r.savedImage)},
                        {"notes", r.notes},
                        {"verdict", r.verdict},
                        {"verdict_explanation", r.verdictExplanation},
                        {"verdict_message", messageToJson(r.verdictMessage)},
                        {"previews", previews},
                        {"seconds", numberOrNull(r.seconds)},
                        {"estimate", estimate},
                        {"cancelled", r.cancelled},
                        {"error", r.error}};
}

RunRecord runRecordFromJson(const nlohmann::json& j, const std::string& path) {
    const Node n(j, path);
    RunRecord r;
    const Node c = n["config"];
    RunConfig& cfg = r.config;
    cfg.modelDir = c["model_dir"].string();
    if (c.has("model_files"))
        for (const auto& s : modelFileSlots())
            if (c["model_files"].has(s.slot))
                cfg.modelFiles.*s.path = c["model_files"][s.slot].string();
    cfg.prompt = c["prompt"].string();
    cfg.negativePrompt = c["negative_prompt"].string();
    cfg.seed = c["seed"].unsignedInteger();
    cfg.steps = c["steps"].intValue();
    cfg.guidance = c["guidance"].number();
    cfg.width = c["width"].intValue();
    cfg.height = c["height"].intValue();
    if (c.has("shift")) cfg.shift = c["shift"].number();
    if (c.has("max_shift")) cfg.maxShift = c["max_shift"].number();
    if (c.has("base_shift")) cfg.baseShift = c["base_shift"].number();
    if (c.has("scheduler")) cfg.scheduler = c["scheduler"].string();
    if (c.has("prediction_type")) cfg.predictionType = c["prediction_type"].string();
    if (c.has("comfy_sampler")) cfg.comfySampler = c["comfy_sampler"].string();
    if (c.has("comfy_scheduler")) cfg.comfyScheduler = c["comfy_scheduler"].string();
    try {
        cfg.plan = PrecisionPlan::parse(c["plan"].string());
    } catch (const PlanParseError& e) {
        c["plan"].fail(e.what());
    }
    cfg.device = c["device"].string();
    cfg.probeLevel = levelFrom(c["probe_level"]);
    cfg.decodeEvery = c["decode_every"].intValue();
    cfg.keepLatents = c["keep_latents"].boolean();
    r.effectivePlan = n["effective_plan"].string();
    const Node comps = n["components"];
    for (size_t i = 0; i < comps.size(); ++i) {
        const Node x = comps.at(i);
        ComponentInfo ci;
        ci.name = x["name"].string();
        ci.role = x.has("role") ? roleFrom(x["role"]) : legacyRoleOf(ci.name);
        ci.className = x["class_name"].string();
        ci.storedDtype = x["stored_dtype"].string();
        ci.parameters = x["parameters"].integer();
        ci.format = formatFrom(x["format"]);
        ci.execution = executionFrom(x["execution"]);
        ci.streamed = x.has("streamed") && x["streamed"].boolean();
        r.components.push_back(ci);
    }
    const Node steps = n["steps"];
    for (size_t i = 0; i < steps.size(); ++i) {
        const Node s = steps.at(i);
        StepRecord st;
        st.step = s["step"].intValue();
        st.sigma = s["sigma"].number();
        st.timestep = s["timestep"].number();
        st.latent = statsFrom(s["latent"]);
        st.velocity = statsFrom(s["velocity"]);
        st.denoised = statsFrom(s["denoised"]);
        st.seconds = s["seconds"].number();
        if (s.has("latent_values_f32")) {
            const auto bytes = bytesFrom(s["latent_values_f32"]);
            if (bytes.size() % sizeof(float) != 0)
                s["latent_values_f32"].fail("byte count is not a multiple of 4");
            st.latentValues.resize(bytes.size() / sizeof(float));
            std::memcpy(st.latentValues.data(), bytes.data(), bytes.size());
        }
        r.steps.push_back(std::move(st));
    }
    const Node probes = n["probes"];
    r.probes.reserve(probes.size());
    for (size_t i = 0; i < probes.size(); ++i) r.probes.push_back(probeFrom(probes.at(i)));
    if (n.has("first_non_finite")) {
        const Node f = n["first_non_finite"];
        FirstNonFinite fn;
        fn.index = size_t(f["index"].unsignedInteger());
        fn.at = probeFrom(f["at"]);
        if (f.has("input")) fn.input = probeFrom(f["input"]);
        r.firstNonFinite = fn;
    }
    r.textEmbedding = statsFrom(n["text_embedding"]);
    r.image = statsFrom(n["image"]);
    r.finalImage = optionalPreview(n, "final_image");
    r.savedImage = optionalPreview(n, "saved_image");
    if (n.has("notes")) {
        const Node notes = n["notes"];
        for (size_t i = 0; i < notes.size(); ++i) r.notes.push_back(notes.at(i).string());
    }
    r.verdict = n["verdict"].string();
    r.verdictExplanation = n["verdict_explanation"].string();
    r.verdictMessage = optionalMessage(n, "verdict_message");  // absent in older reports
    const Node previews = n["previews"];
    for (size_t i = 0; i < previews.size(); ++i) r.previews.push_back(previewFrom(previews.at(i)));
    r.seconds = n["seconds"].number();
    if (n.has("estimate")) {  // absent in older reports
        const Node e = n["estimate"];
        auto known = [&e](const char* key) { return e.has(key) ? e[key].number() : -1.0; };
        r.estimate = RunEstimate{known("seconds"), known("bytes"), known("weight_bytes"),
                                 known("activation_bytes")};
    }
    r.cancelled = n["cancelled"].boolean();
    r.error = n["error"].string();
    return r;
}

}  // namespace hs
