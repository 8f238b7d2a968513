#!/bin/sh
# Word frequency counter: reads text on stdin, prints the ten most common words.
tr 'A-Z' 'a-z' |
  tr -cs 'a-z' '\n' |
  grep -v '^$' |
  sort |
  uniq -c |
  sort -k1,1nr -k2,2 |
  head -n 10
