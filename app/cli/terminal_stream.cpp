#include "cli/terminal_stream.h"

#include <iostream>
#include <streambuf>
#include <string>

#include "io/terminal_text.h"

namespace hs::cli {

namespace {

// Collects text, escapes it in whole UTF-8 sequences and passes it on at each line end, flush
// or every 4 KiB (a multibyte character split between two writes is kept for the next one).
class EscapingBuf : public std::streambuf {
public:
    explicit EscapingBuf(std::streambuf* out) : m_out(out) {}

protected:
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
        m_pending += traits_type::to_char_type(c);
        if (c == '\n' || m_pending.size() >= 4096) pass(false);
        return c;
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        m_pending.append(s, size_t(n));
        if (m_pending.find('\n') != std::string::npos || m_pending.size() >= 4096) pass(false);
        return n;
    }
    int sync() override {
        pass(true);
        return m_out->pubsync();
    }

private:
    void pass(bool all) {
        const size_t n = all ? m_pending.size() : completeUtf8Prefix(m_pending);
        const std::string text = printableText(std::string_view(m_pending).substr(0, n));
        m_out->sputn(text.data(), std::streamsize(text.size()));
        m_pending.erase(0, n);
    }

    std::streambuf* m_out;
    std::string m_pending;
};

}  // namespace

void filterTerminalOutput() {
    // Never destroyed: std::cout is flushed after static objects are gone.
    static auto* out = new EscapingBuf(std::cout.rdbuf());
    static auto* err = new EscapingBuf(std::cerr.rdbuf());
    std::cout.rdbuf(out);
    std::cerr.rdbuf(err);
}

}  // namespace hs::cli
