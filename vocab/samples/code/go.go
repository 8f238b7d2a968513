// Word frequency counter: reads text on stdin, prints the ten most common words.
package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"
	"unicode"
)

func main() {
	counts := map[string]int{}
	scanner := bufio.NewScanner(os.Stdin)
	for scanner.Scan() {
		words := strings.FieldsFunc(strings.ToLower(scanner.Text()), func(r rune) bool {
			return !unicode.IsLetter(r)
		})
		for _, w := range words {
			counts[w]++
		}
	}
	type entry struct {
		word  string
		count int
	}
	var ranked []entry
	for w, c := range counts {
		ranked = append(ranked, entry{w, c})
	}
	sort.Slice(ranked, func(i, j int) bool {
		if ranked[i].count != ranked[j].count {
			return ranked[i].count > ranked[j].count
		}
		return ranked[i].word < ranked[j].word
	})
	for i, e := range ranked {
		if i == 10 {
			break
		}
		fmt.Printf("%7d %s\n", e.count, e.word)
	}
}
