// Replays fuzz inputs without libFuzzer: runs LLVMFuzzerTestOneInput on every
// file given (directories are walked). Used by the normal test suite to keep
// saved crashes (tests/fuzz/regressions/) and seeds fixed forever.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    fs::path p = argv[i];
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (const auto& e : fs::recursive_directory_iterator(p)) {
        if (e.is_regular_file()) files.push_back(e.path());
      }
    } else if (fs::exists(p, ec)) {
      files.push_back(p);
    }
  }
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // An exactly sized copy, as libFuzzer passes it: a std::string's
    // terminating NUL would hide a read one past the end from ASan.
    auto exact = std::make_unique<uint8_t[]>(data.size() + (data.empty() ? 1 : 0));
    std::memcpy(exact.get(), data.data(), data.size());
    LLVMFuzzerTestOneInput(exact.get(), data.size());
  }
  std::printf("replayed %zu inputs\n", files.size());
  return files.empty() ? 1 : 0;
}
