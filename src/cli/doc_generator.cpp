// The hidden generator flags and the App-tree walk both generators share.
#include "cli/command.hpp"
#include "cli/generated_docs.hpp"
#include "core/data_dir.hpp"
#include "core/output.hpp"
#include "cost/catalog.hpp"
#include "formats/builtin_encodings.hpp"
#include "formats/vocab_catalog.hpp"

namespace tok::cli {

std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); });
}

std::vector<const CLI::Option*> visible_options(const CLI::App& app) {
  return app.get_options([](const CLI::Option* o) { return !o->get_group().empty(); });
}

// A flag expects no values (CLI11's add_flag sets expected(0)).
bool takes_value(const CLI::Option& o) { return o.get_positional() || o.get_expected_max() > 0; }

std::vector<std::string> option_choices(const CLI::Option& o) {
  std::string t = o.get_type_name();
  auto open = t.find(":{");
  auto close = t.find('}', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return {};
  std::vector<std::string> out;
  std::string item;
  for (char c : t.substr(open + 2, close - open - 2)) {
    if (c == ',') {
      out.push_back(item);
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
  }
  if (!item.empty()) out.push_back(item);
  return out;
}

namespace {

Result<CompletionWords> completion_words() {
  CompletionWords w;
  for (const auto& b : formats::builtin_encodings()) {
    w.vocabularies.push_back(b.name);
    for (const auto& a : b.aliases) w.vocabularies.push_back(a);
  }
  for (const auto& v : formats::named_vocabs()) w.vocabularies.push_back(v.name);
  // The shipped catalog only: a user's own catalog file (~/.config/tok) must
  // not end up in completion files built on their machine and installed.
  cost::Catalog catalog;
  TOK_TRY(catalog.add_file(vocab_dir() + "/models.json"));
  w.catalog_models = catalog.names();
  return w;
}

// Output reports a closed pipe and a failed write as exceptions, which main()
// turns into a quiet exit 0 and one error line.
int print(const std::string& text) {
  Output out;
  out.write(text);
  out.flush();
  return 0;
}

}  // namespace

std::optional<int> run_doc_generator(int argc, char** argv, const CLI::App& app) {
  if (argc < 2) return std::nullopt;
  std::string flag = argv[1];
  if (flag == "--generate-man" && argc == 2) return print(man_page(app));
  if (flag != "--generate-completion") return std::nullopt;
  if (argc != 3) throw UsageError{"--generate-completion needs one shell: bash, zsh or fish"};
  auto words = completion_words();
  if (!words) return report(words.error());
  auto script = completion_script(app, argv[2], *words);
  if (!script) throw UsageError{script.error().message};
  return print(*script);
}

}  // namespace tok::cli
