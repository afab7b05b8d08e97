#pragma once
// Everything halfscope-cli prints through std::cout and std::cerr passes printableText
// (io/terminal_text.h): a tensor name, label or path from a file cannot send escape sequences to
// the terminal, whichever command prints it. Lines written with fprintf(stderr, ...) quote names
// through printable() themselves.
namespace hs::cli {

// Puts the filter in front of std::cout and std::cerr for the rest of the process (it stays
// alive until exit, so the final flush of std::cout still goes through it).
void filterTerminalOutput();

}  // namespace hs::cli
