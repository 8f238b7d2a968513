// tok show [-e ENC]... [-m MODEL] [--models FILE] [--ids] [--color WHEN] [--html FILE] [--json]
//          [--limit BYTES] [FILE | -t TEXT]
// Draws the tokens of a text (terminal or HTML page) and a summary: tokens,
// characters, words, bytes/token and, with -m, price, context share, KV
// memory and attention FLOPs. The drawing lives in src/show/.
#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command.hpp"
#include "cli/encoding_options.hpp"
#include "cli/input.hpp"
#include "cli/numeric_options.hpp"
#include "cli/show_model.hpp"
#include "cli/text_inputs.hpp"
#include "core/atomic_file.hpp"
#include "core/number_format.hpp"
#include "core/output.hpp"
#include "formats/registry.hpp"
#include "show/html_page.hpp"
#include "show/summary.hpp"
#include "show/terminal_view.hpp"
#include "show/token_spans.hpp"
#include "text/escape.hpp"

namespace tok::cli {
namespace {

constexpr std::size_t kTerminalLimit = 64 * 1024;
// A page carries ~40 bytes of markup per token and browsers slow down past a
// few hundred thousand elements.
constexpr std::size_t kHtmlLimit = 256 * 1024;

struct ShowArgs {
  ShowModelArgs vocab;      // -e, --pattern, -m, --models
  EncodingOptions special;  // only --special / --allow-special
  TextInputs in;
  std::string color = "auto";
  bool ids = false;
  bool json = false;
  std::optional<std::string> html;
  std::optional<std::size_t> limit;
  std::optional<std::size_t> width;
};

// -t TEXT is the text; FILE is read as the file. The old convenience of a
// bare text argument stays only where no file of that name exists, and says
// so on stderr (a mistyped file name is then visible, not silently drawn).
Result<MappedFile> read_input(const TextInputs& in, std::string& source) {
  in.require_one("show");
  if (!in.texts.empty()) {
    source = in.text_name(0);
    return MappedFile::from_string(in.texts[0]);
  }
  const std::string arg = in.files.empty() ? std::string("-") : in.files[0];
  source = input_name(arg);
  std::error_code ec;
  if (arg == "-" ||
      std::filesystem::symlink_status(arg, ec).type() != std::filesystem::file_type::not_found) {
    return open_input(arg);
  }
  warn(fmt::format("no file named '{}': showing the argument as text (-t TEXT says so)", arg));
  source = "<text>";
  return MappedFile::from_string(arg);
}

std::size_t terminal_width() {
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) return std::strtoul(c, nullptr, 10);
  return 0;
}

nlohmann::ordered_json spans_json(const show::Tokenization& t) {
  nlohmann::ordered_json j;
  j["encoding"] = t.encoding;
  j["tokens"] = nlohmann::ordered_json::array();
  for (const auto& s : t.spans) {
    std::string hex = hex_bytes(std::string_view(t.text).substr(s.offset, s.length), "");
    j["tokens"].push_back({{"id", s.id},
                           {"offset", s.offset},
                           {"length", s.length},
                           {"bytes", hex},
                           {"special", s.special}});
  }
  return j;
}

// The model figures as numbers, named as in `tok count --json -m M --kv`.
nlohmann::ordered_json model_json(const show::ModelFigures& f) {
  nlohmann::ordered_json j{{"model", f.model},
                           {"encoding", f.encoding},
                           {"tokens", f.tokens},
                           {"estimate", f.estimate},
                           {"input_cost", f.input_usd.value_or(0)},
                           {"window_share", f.window_share}};
  if (f.kv_f16) {
    j["kv"] = {{"paged_tokens", f.kv_paged_tokens},
               {"bytes_f16", *f.kv_f16},
               {"bytes_q8_0", *f.kv_q8},
               {"attention_flops", *f.attention_flops}};
  }
  return j;
}

// Whole numbers (counts, bytes) print without a fraction: 2036, not 2036.0.
nlohmann::ordered_json number_json(double x) {
  if (std::floor(x) == x && std::fabs(x) < 9007199254740992.0) return static_cast<std::int64_t>(x);
  return x;
}

std::string json_output(const std::vector<show::Tokenization>& views,
                        const std::vector<show::SummarySection>& summary,
                        const std::optional<show::ModelFigures>& model) {
  nlohmann::ordered_json j;
  j["encodings"] = nlohmann::ordered_json::array();
  for (const auto& t : views) j["encodings"].push_back(spans_json(t));
  j["summary"] = nlohmann::ordered_json::array();
  for (const auto& s : summary) {
    nlohmann::ordered_json sj{{"title", s.title}, {"rows", nlohmann::ordered_json::array()}};
    // "value": the number (null when there is none); "text": as printed.
    for (const auto& r : s.rows) {
      nlohmann::ordered_json v =
          r.number ? number_json(*r.number) : nlohmann::ordered_json(nullptr);
      sj["rows"].push_back({{"label", r.label}, {"value", v}, {"text", r.value}, {"note", r.note}});
    }
    if (!s.sentence.empty()) sj["sentence"] = s.sentence;
    j["summary"].push_back(sj);
  }
  if (model) j["model"] = model_json(*model);
  return text::escape_json_controls(
             j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) +
         "\n";
}

std::string left_out_note(std::size_t shown_bytes, std::size_t total_bytes,
                          std::size_t tokens_left) {
  return fmt::format("… {} more bytes ({} tokens) not shown; --limit BYTES shows more\n",
                     show::group_digits(total_bytes - shown_bytes),
                     show::group_digits(tokens_left));
}

std::string terminal_output(const ShowArgs& a, const std::vector<show::Tokenization>& views,
                            const std::vector<show::SummarySection>& summary) {
  bool tty = isatty(STDOUT_FILENO) == 1;
  show::TerminalOptions o;
  o.palette = show::choose_palette(a.color, tty, std::getenv("TERM"), std::getenv("COLORTERM"),
                                   std::getenv("NO_COLOR"));
  o.ids = a.ids;
  o.width = a.width ? *a.width : (tty ? terminal_width() : 0);
  std::size_t limit = a.limit.value_or(kTerminalLimit);
  std::string out;
  std::size_t total = views[0].text.size();
  bool aligned = views.size() == 2 && views[0].text == views[1].text;
  if (aligned) {
    std::size_t end = show::common_end(views[0], views[1], limit);
    if (total <= limit) end = total;
    out += show::render_aligned(views[0], views[1], end, o);
    if (end < total) {
      out += left_out_note(end, total,
                           views[0].spans.size() - show::spans_within(views[0].spans, end));
    }
  } else {
    for (const auto& t : views) {
      if (views.size() > 1) out += t.encoding + ":\n";
      std::size_t n = show::spans_within(t.spans, limit);
      out += show::render_tokens(t, n, o);
      std::size_t shown = n ? t.spans[n - 1].offset + t.spans[n - 1].length : 0;
      if (n < t.spans.size()) out += left_out_note(shown, t.text.size(), t.spans.size() - n);
    }
  }
  return out + show::render_summary(summary, o.palette);
}

Status write_page(const ShowArgs& a, const std::string& source,
                  const std::vector<show::Tokenization>& views,
                  std::vector<show::SummarySection> summary) {
  show::PageInput page{source, {}, std::move(summary)};
  std::size_t limit = a.limit.value_or(kHtmlLimit);
  for (const auto& t : views) page.views.push_back({&t, show::spans_within(t.spans, limit)});
  return write_file_atomic(*a.html, show::render_page(page));
}

// Errors name the input, then the vocabulary that refused it.
Result<std::vector<show::Tokenization>> tokenize_all(const ShowModel& m, const std::string& source,
                                                     std::string_view text, bpe::SpecialMode mode) {
  std::vector<show::Tokenization> views;
  for (const bpe::Tokenizer* tk : m.tokenizers()) {
    auto t = show::build_spans(*tk, text, mode);
    if (!t.ok()) return make_error("{}: {}: {}", source, tk->name(), t.error().message);
    views.push_back(std::move(t).value());
  }
  return views;
}

int run_show(const ShowArgs& a) {
  if (a.vocab.encodings.size() > 2) throw UsageError{"show takes at most two -e vocabularies"};
  if (a.limit && *a.limit == 0) throw UsageError{"--limit must be at least 1 byte"};
  if (a.html) {
    std::vector<std::string> inputs = a.in.files;
    if (a.in.empty()) inputs.push_back("-");
    inputs.insert(inputs.end(), a.vocab.encodings.begin(), a.vocab.encodings.end());
    inputs.insert(inputs.end(), a.vocab.model_files.begin(), a.vocab.model_files.end());
    require_distinct_outputs(inputs, {*a.html});
  }
  std::string source;
  auto in = read_input(a.in, source);
  if (!in.ok()) return report(in.error());
  auto model = ShowModel::load(a.vocab);
  if (!model.ok()) return report(model.error());
  auto views = tokenize_all(**model, source, in->bytes(), a.special.special_mode());
  if (!views.ok()) return report(views.error());
  auto measure = show::measure_text(in->bytes());
  if (!measure.ok()) return report(measure.error());
  std::vector<show::EncodingFigures> figures;
  for (const auto& t : *views) figures.push_back({t.encoding, t.spans.size()});
  // The model's figures count with its own tokenizer, drawn or not (as tok count -m).
  std::uint64_t model_tokens = views->front().spans.size();
  const bpe::Tokenizer* mt = (*model)->model_tokenizer();
  if (mt && mt != (*model)->tokenizers().front()) {
    auto n = mt->count(in->bytes(), a.special.special_mode(), 1);
    if (!n.ok()) return report(make_error("{}: {}: {}", source, mt->name(), n.error().message));
    model_tokens = *n;
  }
  auto mf = (*model)->figures(model_tokens);
  if (!a.json) {
    // Names from the user (a vocabulary's file name, a catalog's model id)
    // label the table and the page: printable, as every name tok shows.
    for (auto& t : *views) t.encoding = one_line(t.encoding);
    for (auto& f : figures) f.encoding = one_line(f.encoding);
    if (mf) mf->model = one_line(mf->model), mf->encoding = one_line(mf->encoding);
  }
  if (mf && mf->estimate) {
    warn(fmt::format("{}: token counts are ESTIMATES: its tokenizer is not public; counted with {}",
                     mf->model, mf->encoding));
  }
  auto summary = show::summary_sections(*measure, figures, mf);
  if (a.html) {
    Status s = write_page(a, source, *views, std::move(summary));
    if (!s.ok()) return report(s.error());
    return 0;
  }
  Output out;
  out.write(a.json ? json_output(*views, summary, mf) : terminal_output(a, *views, summary));
  out.flush();
  return 0;
}

}  // namespace

void add_show(CLI::App& app, CommandTable& commands) {
  auto a = std::make_shared<ShowArgs>();
  CLI::App* sub = app.add_subcommand("show", "Show the tokens of a text, and what they cost");
  sub->add_option("-e,--encoding", a->vocab.encodings,
                  "Vocabulary (give two to compare them aligned): a built-in name or a .tiktoken "
                  "path (default: the model's, else o200k_base)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_option("--pattern", a->vocab.pattern, "Split pattern overriding the -e vocabularies'");
  a->special.add_special(sub, "text");
  sub->add_option("-m,--model", a->vocab.model,
                  "Model from the catalog (see `tok models`): adds input cost, context share, "
                  "KV-cache bytes and attention FLOPs to the summary; counted with the first -e "
                  "if given, else the model's tokenizer, as `tok count -m` does");
  sub->add_option("--models", a->vocab.model_files,
                  "Extra catalog JSON adding or overriding models (repeatable)");
  a->in.add(sub,
            "Input file ('-' is stdin; default: stdin); where no file has that name, the "
            "argument is shown as text, with a warning");
  sub->add_option("--color", a->color,
                  "Colour: always, never or auto (a terminal without NO_COLOR)")
      ->check(CLI::IsMember({"always", "never", "auto"}))
      ->capture_default_str();
  sub->add_flag("--ids", a->ids, "Print each token's id after it (subscript digits)");
  sub->add_option("--html", a->html, "Write a self-contained HTML page to FILE instead");
  sub->add_flag("--json", a->json,
                "Print the spans (id, offset, length, bytes hex) and summary as JSON");
  sub->add_option("--limit", a->limit,
                  "Draw at most this many bytes (default 65536 in the terminal, 262144 in "
                  "--html); the summary always covers everything")
      ->check(integer_in(0, max_of<std::int64_t>()));
  sub->add_option("--width", a->width,
                  "Wrap aligned rows at this many columns (default: the terminal's)")
      ->check(integer_in(1, 1 << 20));
  sub->get_option("--html")->excludes("--json");
  commands.add(sub, [a] { return run_show(*a); });
}

}  // namespace tok::cli
