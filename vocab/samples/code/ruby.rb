# Word frequency counter: reads text on stdin, prints the ten most common words.
counts = Hash.new(0)
$stdin.read.downcase.scan(/[a-z]+/) { |word| counts[word] += 1 }

ranked = counts.sort_by { |word, count| [-count, word] }
ranked.first(10).each do |word, count|
  puts format("%7d %s", count, word)
end
