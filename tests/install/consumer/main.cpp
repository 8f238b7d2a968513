// encode_ids ENCODING TEXT: the ids of TEXT, space-separated on one line (as
// `tok encode` prints them), then the count and the decoded text.
#include <cstdio>
#include <string>
#include <tok/tok.hpp>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: encode_ids ENCODING TEXT\n");
    return 2;
  }
  auto enc = tok::Encoding::load(argv[1]);
  if (!enc) {
    std::fprintf(stderr, "encode_ids: %s\n", enc.error().message.c_str());
    return 1;
  }
  auto ids = enc->encode(argv[2]);
  auto count = enc->count(argv[2]);
  if (!ids || !count) {
    std::fprintf(stderr, "encode_ids: %s\n", (ids ? count.error() : ids.error()).message.c_str());
    return 1;
  }
  std::string line;
  for (tok::TokenId id : *ids) line += (line.empty() ? "" : " ") + std::to_string(id);
  auto text = enc->decode(*ids);
  if (!text) {
    std::fprintf(stderr, "encode_ids: %s\n", text.error().message.c_str());
    return 1;
  }
  std::printf("%s\n%zu\n%s\n", line.c_str(), *count, text->c_str());
  return 0;
}
