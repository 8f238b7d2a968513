// The one thing `tok compare -m MODEL` needs from the model catalog
// (vocab/models.json, maintained by `tok cost`): the model's tokenizer and
// its input price. Read lazily, only when -m is given, so compare works
// without a catalog.
#pragma once

#include <string>
#include <string_view>

#include "core/result.hpp"

namespace tok::compare {

struct ModelPrice {
  std::string id;
  std::string tokenizer;        // what -e would accept
  double input_per_mtok = 0;    // USD per million input tokens
  std::string price_date;       // when the price was read, if the catalog says
};

// Looks `name` up by id or alias (case-insensitive) in the catalog file.
Result<ModelPrice> find_model_price(const std::string& catalog_path, std::string_view name);

}  // namespace tok::compare
