// How much memory a new allocation can get, so that a run which cannot fit
// (a model's KV cache for a long context, ...) is refused with a message
// before it allocates, instead of dying half-way in the OOM killer.
#pragma once

#include <cstdint>
#include <optional>

namespace tok {

// The smallest of: /proc/meminfo MemAvailable, the room left under the
// address-space and data limits (ulimit -v / RLIMIT_AS, RLIMIT_DATA; the
// current usage is subtracted) and under the cgroup v2 limit (memory.max -
// memory.current). nullopt when none of them can be read.
std::optional<std::uint64_t> available_memory();

}  // namespace tok
