// Reads a GGUF file's hyperparameters into a ModelConfig: which
// architecture it is, and the switches that architecture sets (the keys and
// fixed values are llama.cpp's, from its src/llama-model.cpp and
// src/models/<arch>.cpp, so a file runs the graph llama.cpp runs for it).
#pragma once

#include "core/result.hpp"
#include "model/model.hpp"

namespace tok::formats {
class GgufFile;
}

namespace tok::model {

// Everything but n_vocab (the embedding tensor's shape fixes that).
Result<ModelConfig> read_config(const formats::GgufFile& f);

}  // namespace tok::model
