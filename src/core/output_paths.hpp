// What an output path names, and the one check every command that writes
// files runs before it opens any: an output must not be one of the command's
// inputs, nor another of its outputs. Without it `tok quantize m.gguf m.gguf`
// or `tok encode --jsonl text d.jsonl -o d.jsonl` replaced the input with
// the output, and `-o X --index X` kept one of the two.
//
// Files are compared as the kernel sees them (device and inode, through
// symbolic and hard links); an input "-" is standard input, so
// `-o d.jsonl <d.jsonl` is refused too. An output that does not exist yet is
// compared with the other outputs by its path with links resolved. Only
// regular files count: /dev/null or a FIFO may be named twice.
#pragma once

#include <span>
#include <string>

#include "core/result.hpp"

namespace tok {

// Follows symbolic links one at a time (a dangling link names the file to
// create), so that AtomicFile replaces the link's target, never the link.
Result<std::string> resolve_links(const std::string& path);

// Refuses the first output that is an input or another output, with
//   "OUT: is also an input; write to another file" or
//   "OUT: is also another output; write to another file"
// (the other name in parentheses when it is spelt differently). Empty paths
// and "-" (standard output) among the outputs are skipped; inputs that do not
// exist (or are names, such as an encoding's) are skipped too: opening them
// reports that.
Status check_outputs(std::span<const std::string> inputs, std::span<const std::string> outputs);

}  // namespace tok
