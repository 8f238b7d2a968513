// GGUF: reader (GgufFile) and writer (GgufWriter) for llama.cpp's model and
// vocabulary format. See gguf_reader.hpp and gguf_writer.hpp.
#pragma once

#include "formats/gguf_reader.hpp"
#include "formats/gguf_types.hpp"
#include "formats/gguf_writer.hpp"
