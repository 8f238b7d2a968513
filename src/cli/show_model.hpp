// The -m MODEL part of `tok show`: which vocabularies to use (the model's
// own unless -e says otherwise) and the model figures for the summary, taken
// from the cost module so they equal `tok count -m` and `tok count --kv`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "show/summary.hpp"

namespace tok::cli {

class ShowModel {
 public:
  static Result<ShowModel> resolve(const std::optional<std::string>& model,
                                   const std::vector<std::string>& encodings);
  // The vocabularies to draw, in order (1 or 2).
  std::vector<std::string> encodings;
  // Figures for `tokens` tokens of the first vocabulary; nullopt without -m.
  Result<std::optional<show::ModelFigures>> figures(std::size_t tokens) const;

 private:
  std::optional<std::string> model_;
};

}  // namespace tok::cli
