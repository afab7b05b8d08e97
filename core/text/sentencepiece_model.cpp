#include "text/sentencepiece_model.h"

#include <filesystem>
#include <mutex>

#include "io/platform_file.h"
#include "text/clip_tokenizer.h"  // TokenizerError
#include "text/sentencepiece/spm_bridge.h"

namespace hs {

struct SentencePieceModel::Api {
    decltype(&hs_spm_load) load = nullptr;
    decltype(&hs_spm_free) free = nullptr;
    decltype(&hs_spm_piece_size) pieceSize = nullptr;
    decltype(&hs_spm_unk_id) unkId = nullptr;
    decltype(&hs_spm_piece_to_id) pieceToId = nullptr;
    decltype(&hs_spm_id_to_piece) idToPiece = nullptr;
    decltype(&hs_spm_encode) encode = nullptr;
    std::string error;  // why the module could not be loaded ("" when it was)
};

namespace {

namespace fs = std::filesystem;

#ifdef _WIN32
constexpr const char* kModuleName = "libhalfscope_spm.dll";
#else
constexpr const char* kModuleName = "libhalfscope_spm.so";
#endif

// $HALFSCOPE_SPM_MODULE; installed: <prefix>/lib/halfscope/ from <prefix>/libexec/halfscope/ or
// <prefix>/bin/; then the build tree's copy, for a program that runs inside the build tree only:
// an installed program must never load a library from where it was built (a /tmp path any local
// user could create).
std::vector<fs::path> candidates() {
    std::vector<fs::path> c;
    const char* name = kModuleName;
    if (const char* env = std::getenv("HALFSCOPE_SPM_MODULE")) c.emplace_back(env);
    const fs::path exe = fs::u8path(platform::executablePath()).lexically_normal();
    if (!exe.empty()) {
        c.push_back(exe.parent_path().parent_path().parent_path() / "lib/halfscope" / name);
        c.push_back(exe.parent_path().parent_path() / "lib/halfscope" / name);
        const fs::path built = fs::u8path(HALFSCOPE_SPM_MODULE_BUILT).lexically_normal();
        const std::string buildRoot =
            built.parent_path().parent_path().parent_path().u8string() + "/";
        if (exe.u8string().compare(0, buildRoot.size(), buildRoot) == 0) c.push_back(built);
    }
    return c;
}

template <typename F>
void bind(void* handle, const char* symbol, F& fn, std::string& error) {
    fn = reinterpret_cast<F>(platform::moduleSymbol(handle, symbol));
    if (!fn && error.empty()) error = std::string("it has no ") + symbol;
}

const SentencePieceModel::Api& api() {
    static SentencePieceModel::Api a;
    static std::once_flag once;
    std::call_once(once, [] {
        std::string tried;
        for (const auto& path : candidates()) {
            std::error_code ec;
            if (!fs::exists(path, ec)) {
                tried += (tried.empty() ? "" : ", ") + path.string();
                continue;
            }
            // Its own symbol namespace on Linux (RTLD_DEEPBIND): SentencePiece's protobuf must
            // not bind to the one LibTorch brought in (platform::loadModule).
            std::string loadError;
            void* h = platform::loadModule(path.u8string(), loadError);
            if (!h) {
                a.error = path.string() + ": " + loadError;
                return;
            }
            auto abi =
                reinterpret_cast<decltype(&hs_spm_abi)>(platform::moduleSymbol(h, "hs_spm_abi"));
            if (!abi || abi() != HS_SPM_ABI) {
                a.error = path.string() + ": another version of the module";
                return;
            }
            std::string& e = a.error;
            bind(h, "hs_spm_load", a.load, e);
            bind(h, "hs_spm_free", a.free, e);
            bind(h, "hs_spm_piece_size", a.pieceSize, e);
            bind(h, "hs_spm_unk_id", a.unkId, e);
            bind(h, "hs_spm_piece_to_id", a.pieceToId, e);
            bind(h, "hs_spm_id_to_piece", a.idToPiece, e);
            bind(h, "hs_spm_encode", a.encode, e);
            if (!e.empty()) e = path.string() + ": " + e;
            return;
        }
        a.error = std::string(kModuleName) +
                  " (Halfscope's SentencePiece module) was not found; looked in " + tried +
                  " (set $HALFSCOPE_SPM_MODULE to its path)";
    });
    return a;
}

const SentencePieceModel::Api& checkedApi(const std::string& source) {
    const auto& a = api();
    if (!a.error.empty()) throw TokenizerError(source + ": cannot read it: " + a.error);
    return a;
}

}  // namespace

SentencePieceModel::SentencePieceModel(const std::string& bytes, const std::string& source)
    : m_api(checkedApi(source)) {
    char error[512] = {0};
    m_model = m_api.load(bytes.data(), bytes.size(), error, sizeof error);
    if (!m_model) throw TokenizerError(source + ": SentencePiece cannot load it: " + error);
}

SentencePieceModel::~SentencePieceModel() {
    if (m_model) m_api.free(m_model);
}

int SentencePieceModel::pieceSize() const {
    return m_api.pieceSize(m_model);
}

int SentencePieceModel::unkId() const {
    return m_api.unkId(m_model);
}

int SentencePieceModel::pieceToId(std::string_view piece) const {
    return m_api.pieceToId(m_model, piece.data(), piece.size());
}

std::string SentencePieceModel::idToPiece(int id) const {
    if (id < 0 || id >= pieceSize())
        throw TokenizerError("token id " + std::to_string(id) + " is outside the vocabulary of " +
                             std::to_string(pieceSize()) + " pieces");
    std::string s(64, '\0');
    const size_t n = m_api.idToPiece(m_model, id, s.data(), s.size());
    if (n > s.size()) {
        s.resize(n);
        m_api.idToPiece(m_model, id, s.data(), s.size());
    }
    s.resize(n);
    return s;
}

std::vector<SentencePieceToken> SentencePieceModel::encode(std::string_view text) const {
    std::vector<SentencePieceToken> out;
    auto add = [](void* user, int id, const char* piece, size_t n, size_t begin, size_t end) {
        static_cast<std::vector<SentencePieceToken>*>(user)->push_back(
            {id, std::string(piece, n), begin, end});
    };
    if (m_api.encode(m_model, text.data(), text.size(), add, &out) != 0)
        throw TokenizerError("SentencePiece failed to encode a text of " +
                             std::to_string(text.size()) + " bytes");
    return out;
}

}  // namespace hs
