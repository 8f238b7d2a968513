#include "cli/model_options.hpp"

#include <fmt/format.h>

#include "cli/command.hpp"
#include "cost/catalog.hpp"

namespace tok::cli {

void ModelOptions::add(CLI::App* app) {
  enc.add_encoding(app);
  enc.add_special(app, "text");
  app->add_option("-m,--model", model, "Use this catalog model's tokenizer (see `tok models`)");
  app->add_option("--models", model_files, "Extra catalog JSON adding or overriding models")
      ->allow_extra_args(false);
}

Result<const bpe::Tokenizer*> ModelOptions::resolve(cost::TokenizerSet& set) const {
  if (model.empty()) return set.get_encoding(enc.encoding);
  TOK_ASSIGN(cost::Catalog catalog, cost::Catalog::load_default(model_files));
  TOK_ASSIGN(const cost::ModelInfo* m, catalog.get(model));
  if (m->estimate) {
    warn(fmt::format("{}: its tokenizer is not public; cutting with {} as a proxy (an ESTIMATE)",
                     m->id, m->tokenizer));
  }
  return set.get(*m);
}

}  // namespace tok::cli
