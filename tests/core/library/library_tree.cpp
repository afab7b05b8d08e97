#include "library_tree.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "../sd_fixture.h"

namespace hs::test {

namespace fs = std::filesystem;

namespace {

void writeText(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

// Mirrors `folder` as a hub repository: every file becomes blobs/<n> and the snapshot a tree
// of relative symlinks to them, as huggingface_hub lays a download out.
std::string writeHubRepo(const fs::path& hub, const std::string& repo, const fs::path& folder,
                         uint64_t& safetensorsBytes) {
    const fs::path r = hub / repo;
    const std::string rev = "0123456789abcdef0123456789abcdef01234567";
    const std::string oldRev = "fedcba9876543210fedcba9876543210fedcba98";
    int n = 0;
    for (const auto& e : fs::recursive_directory_iterator(folder)) {
        if (!e.is_regular_file()) continue;
        const fs::path rel = fs::relative(e.path(), folder);
        const std::string blob = "blob" + std::to_string(n++);
        fs::create_directories(r / "blobs");
        fs::copy_file(e.path(), r / "blobs" / blob);
        if (rel.extension() == ".safetensors") safetensorsBytes += fs::file_size(e.path());
        for (const auto& s : {rev, oldRev}) {
            const fs::path link = r / "snapshots" / s / rel;
            fs::create_directories(link.parent_path());
            // ../../blobs/<blob> from snapshots/<rev>/<rel>: one ".." per folder level.
            fs::path target;
            for (auto it = rel.begin(); it != rel.end(); ++it) target /= "..";
            fs::create_symlink(target / ".." / "blobs" / blob, link);
        }
    }
    writeText(r / "refs" / "main", rev);
    return (r / "snapshots" / rev).string();
}

}  // namespace

std::string copyInto(const std::string& file, const std::string& dir, const std::string& name) {
    fs::create_directories(dir);
    const std::string to = dir + "/" + name;
    fs::copy_file(file, to, fs::copy_options::overwrite_existing);
    return to;
}

LibraryTree writeLibraryTree(const std::string& root) {
    LibraryTree t;
    t.root = root;
    t.flux = writeTinyFlux1(root + "/fixture");
    t.hf = root + "/hf/hub";
    t.snapshot = writeHubRepo(t.hf, "models--black-forest-labs--FLUX.1-tiny", t.flux.folder,
                              t.pipelineBytes);

    // ComfyUI: the split FLUX set in its folders, and broken files beside them.
    t.comfy = root + "/ComfyUI";
    const std::string m = t.comfy + "/models";
    copyInto(t.flux.bfl, m + "/diffusion_models", "flux1-tiny.safetensors");
    copyInto(t.flux.ae, m + "/vae", "ae.safetensors");
    copyInto(t.flux.clipL, m + "/clip", "clip_l.safetensors");
    copyInto(t.flux.t5, m + "/text_encoders", "t5xxl_tiny.safetensors");
    // The tokenizers beside the encoders, where the load looks for them: ComfyUI's own files
    // carry none (the library names a missing T5 tokenizer); the tiny CLIP's vocabulary is not
    // the bundled CLIP-L one.
    fs::copy(t.flux.tokenizer, m + "/clip/tokenizer", fs::copy_options::recursive);
    fs::copy(t.flux.tokenizer2, m + "/text_encoders/tokenizer_2", fs::copy_options::recursive);
    {
        // Truncated: the first 100 bytes of a real file (inside its header).
        std::ifstream in(t.flux.ae, std::ios::binary);
        std::string head(100, '\0');
        in.read(head.data(), 100);
        writeText(m + "/vae/truncated.safetensors", head);
        // A header length of 12 and 12 bytes that are not JSON.
        writeText(m + "/vae/corrupt.safetensors",
                  std::string("\x0c\0\0\0\0\0\0\0", 8) + "{not json!!}");
    }
    fs::create_symlink(root + "/nowhere/gone.safetensors", m + "/clip/gone.safetensors");
    // A FIFO named like a model must not block the scan; a symlink back up the tree must not
    // loop it.
    ::mkfifo((m + "/vae/pipe.safetensors").c_str(), 0644);
    fs::create_symlink("..", m + "/vae/up");
    // Not a model: ignored inside the walk.
    writeText(m + "/vae/README.txt", "put VAEs here");

    // extra_model_paths.yaml: a section whose base_path is relative to the yaml, a `|` block of
    // two vae folders and a checkpoints folder.
    t.extra = root + "/extra";
    copyInto(t.flux.bflPrefixed, t.extra + "/ckpts/flux", "flux1-comfy.safetensors");
    copyInto(t.flux.ae, t.extra + "/vaes-b", "ae-copy.safetensors");
    fs::create_directories(t.extra + "/vaes-a");
    writeText(t.comfy + "/extra_model_paths.yaml",
              "# other tools' folders\n"
              "shared:\n"
              "    base_path: ../extra\n"
              "    is_default: true\n"
              "    checkpoints: ckpts/  # a comment\n"
              "    vae: |\n"
              "        vaes-a\n"
              "        vaes-b\n"
              "    loras: loras\n");

    // AUTOMATIC1111: an SD 1.x checkpoint (LDM keys: UNet, VAE, CLIP in one file).
    t.a1111 = root + "/webui";
    const SdFiles sd = writeTinySd(root + "/sd", false, sdEulerConfig());
    fs::create_directories(t.a1111 + "/models/Stable-diffusion");
    fs::create_directories(t.a1111 + "/models/VAE");
    t.sdFile =
        writeSdSingleFile(sd, t.a1111 + "/models/Stable-diffusion/sd15-tiny.safetensors", false);
    // A pickle checkpoint: listed, never opened.
    writeText(t.a1111 + "/models/Stable-diffusion/old.ckpt", "PK\x03\x04 not opened");
    return t;
}

}  // namespace hs::test
