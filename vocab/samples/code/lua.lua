-- Word frequency counter: reads text on stdin, prints the ten most common words.
local counts = {}
local text = io.read("a"):lower()
for word in text:gmatch("%a+") do
  counts[word] = (counts[word] or 0) + 1
end

local ranked = {}
for word, count in pairs(counts) do
  ranked[#ranked + 1] = { word = word, count = count }
end
table.sort(ranked, function(a, b)
  if a.count ~= b.count then return a.count > b.count end
  return a.word < b.word
end)

for i = 1, math.min(10, #ranked) do
  print(string.format("%7d %s", ranked[i].count, ranked[i].word))
end
