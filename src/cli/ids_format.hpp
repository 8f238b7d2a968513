// Which format `tok encode --jsonl` writes its ids in: --format, else what the
// output file's name says. One rule for every command that writes ids, so a
// file's name never contradicts its contents (`-o x.u16` holding u32 ids).
#pragma once

#include <string>

namespace tok::cli {

// format: --format as given ("" when absent; text, u16, u32 or npy);
// output: -o ("" or "-" for stdout). Returns the format to write:
// - --format, when the name agrees or says nothing;
// - else a known suffix: .u16, .u32, .npy, .txt (text);
// - else text on stdout, u32 in a file.
// Throws UsageError (exit 2) for a known suffix that contradicts --format,
// and for .bin without --format (nanoGPT's train.bin is u16, others u32).
std::string ids_format(const std::string& format, const std::string& output);

}  // namespace tok::cli
