#include "cli/show_model.hpp"

namespace tok::cli {

Result<ShowModel> ShowModel::resolve(const std::optional<std::string>& model,
                                     const std::vector<std::string>& encodings) {
  ShowModel m;
  m.model_ = model;
  m.encodings = encodings;
  if (model) return make_error("-m {}: the model catalog is not available in this build", *model);
  if (m.encodings.empty()) m.encodings.push_back("o200k_base");
  return m;
}

Result<std::optional<show::ModelFigures>> ShowModel::figures(std::size_t) const {
  return std::optional<show::ModelFigures>{};
}

}  // namespace tok::cli
