"""Word frequency counter: reads text on stdin, prints the ten most common words."""
import re
import sys
from collections import Counter


def count_words(text: str) -> Counter:
    words = re.findall(r"[a-z]+", text.lower())
    return Counter(words)


def main() -> None:
    counts = count_words(sys.stdin.read())
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    for word, count in ranked[:10]:
        print(f"{count:7d} {word}")


if __name__ == "__main__":
    main()
