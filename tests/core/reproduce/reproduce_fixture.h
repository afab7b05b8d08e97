#pragma once
// Shared by the reproduce tests: graphs and infotexts read from text, and PNG files built chunk
// by chunk (hostile ones included, which the PNG writer refuses to make).
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "io/image_io.h"
#include "reproduce/a1111_infotext.h"
#include "reproduce/comfy_trace.h"
#include "reproduce/comfy_workflow.h"
#include "reproduce/reproduce.h"

namespace hs::test {

inline ReproduceSettings settingsOfGraph(const nlohmann::json& api) {
    return traceComfyGraph(ComfyGraph::fromApiJson(api.dump()));
}

inline ReproduceSettings settingsOfWorkflow(const nlohmann::json& ui) {
    return traceComfyGraph(comfyGraphFromWorkflow(ui.dump()));
}

inline ReproduceSettings settingsOfInfotext(const std::string& text) {
    return settingsFromInfotext(parseInfotext(text));
}

// One PNG chunk: length, type, data, CRC-32 of type and data.
inline std::string pngChunk(const std::string& type, const std::string& data) {
    auto be32 = [](uint32_t v) {
        return std::string{char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
    };
    uint32_t crc = 0xFFFFFFFFu;
    for (unsigned char c : type + data) {
        crc ^= c;
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return be32(uint32_t(data.size())) + type + data + be32(crc ^ 0xFFFFFFFFu);
}

// A 1x1 grey PNG with `chunks` (whole chunks, as pngChunk makes them) right after its IHDR.
inline std::string pngWith(const std::string& chunks) {
    Image img;
    img.width = img.height = img.channels = 1;
    img.pixels = {128};
    const std::vector<uint8_t> png = encodePng(img);
    const std::string bytes(png.begin(), png.end());
    const size_t afterIhdr = 8 + 12 + 13;  // signature, IHDR (length, type, 13 bytes, CRC)
    return bytes.substr(0, afterIhdr) + chunks + bytes.substr(afterIhdr);
}

inline void writeBytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace hs::test
