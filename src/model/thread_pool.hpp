// The model's matmuls run on core's one thread pool (core/thread_pool.hpp),
// the persistent, spin-then-sleep pool decode needs; tok::model keeps the
// name so model code and its tests say ThreadPool as before.
#pragma once

#include "core/thread_pool.hpp"

namespace tok::model {

using ThreadPool = tok::ThreadPool;

}  // namespace tok::model
