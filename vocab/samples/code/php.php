<?php
// Word frequency counter: reads text on stdin, prints the ten most common words.
$text = strtolower(stream_get_contents(STDIN));
preg_match_all('/[a-z]+/', $text, $matches);

$counts = [];
foreach ($matches[0] as $word) {
    $counts[$word] = ($counts[$word] ?? 0) + 1;
}

uksort($counts, function ($a, $b) use ($counts) {
    return $counts[$b] <=> $counts[$a] ?: strcmp($a, $b);
});

foreach (array_slice($counts, 0, 10, true) as $word => $count) {
    printf("%7d %s\n", $count, $word);
}
