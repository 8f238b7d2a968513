// Word frequency counter: reads text on stdin, prints the ten most common words.
#include <algorithm>
#include <cctype>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

int main() {
  std::unordered_map<std::string, int> counts;
  std::string word;
  char c;
  while (std::cin.get(c)) {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word.empty()) {
      ++counts[word];
      word.clear();
    }
  }
  if (!word.empty()) ++counts[word];

  std::vector<std::pair<std::string, int>> sorted(counts.begin(), counts.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  for (std::size_t i = 0; i < sorted.size() && i < 10; ++i) {
    std::cout << sorted[i].second << ' ' << sorted[i].first << '\n';
  }
  return 0;
}
