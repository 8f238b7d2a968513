#include "compare/model_price.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/mapped_file.hpp"

namespace tok::compare {
namespace {

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool matches(const nlohmann::json& m, std::string_view name) {
  if (m.contains("id") && m["id"].is_string() && same_name(m["id"].get<std::string>(), name)) {
    return true;
  }
  if (m.contains("aliases") && m["aliases"].is_array()) {
    for (const auto& a : m["aliases"]) {
      if (a.is_string() && same_name(a.get<std::string>(), name)) return true;
    }
  }
  return false;
}

}  // namespace

Result<ModelPrice> find_model_price(const std::string& catalog_path, std::string_view name) {
  std::error_code ec;
  if (!std::filesystem::exists(catalog_path, ec)) {
    return make_error(
        "{}: no model catalog installed, so -m cannot price '{}' (the catalog comes with "
        "`tok cost`; without -m, compare needs none)",
        catalog_path, name);
  }
  TOK_ASSIGN(MappedFile file, MappedFile::open(catalog_path, kMaxSmallStreamBytes));
  nlohmann::json j = nlohmann::json::parse(file.bytes(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("models") || !j["models"].is_array()) {
    return make_error("{}: not a model catalog (expected an object with a \"models\" array)",
                      catalog_path);
  }
  for (const auto& m : j["models"]) {
    if (!m.is_object() || !matches(m, name)) continue;
    ModelPrice p;
    p.id = m.value("id", std::string(name));
    p.tokenizer = m.value("tokenizer", std::string());
    if (p.tokenizer.empty()) {
      return make_error("{}: model '{}' names no tokenizer", catalog_path, p.id);
    }
    if (!m.contains("price") || !m["price"].is_object() || !m["price"].contains("input") ||
        !m["price"]["input"].is_number()) {
      return make_error("{}: model '{}' has no input price", catalog_path, p.id);
    }
    p.input_per_mtok = m["price"]["input"].get<double>();
    p.price_date = m["price"].value("date", std::string());
    return p;
  }
  return make_error("{}: unknown model '{}' (see `tok cost --list` or the catalog for names)",
                    catalog_path, name);
}

}  // namespace tok::compare
