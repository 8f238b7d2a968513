// Word frequency counter: reads text on stdin, prints the ten most common words.
const fs = require("fs");

function countWords(text) {
  const counts = new Map();
  for (const word of text.toLowerCase().match(/[a-z]+/g) || []) {
    counts.set(word, (counts.get(word) || 0) + 1);
  }
  return counts;
}

const counts = countWords(fs.readFileSync(0, "utf8"));
const ranked = [...counts.entries()].sort(
  (a, b) => b[1] - a[1] || a[0].localeCompare(b[0])
);
for (const [word, count] of ranked.slice(0, 10)) {
  console.log(`${String(count).padStart(7)} ${word}`);
}
