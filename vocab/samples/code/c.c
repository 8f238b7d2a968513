/* Word frequency counter: reads text on stdin, prints the ten most common words. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
  char word[64];
  int count;
};

static struct entry table[4096];
static int used = 0;

static void add_word(const char *word) {
  for (int i = 0; i < used; i++) {
    if (strcmp(table[i].word, word) == 0) {
      table[i].count++;
      return;
    }
  }
  if (used < 4096) {
    strncpy(table[used].word, word, sizeof table[used].word - 1);
    table[used].count = 1;
    used++;
  }
}

static int by_count(const void *a, const void *b) {
  const struct entry *x = a, *y = b;
  if (x->count != y->count) return y->count - x->count;
  return strcmp(x->word, y->word);
}

int main(void) {
  char word[64];
  int len = 0, c;
  while ((c = getchar()) != EOF) {
    if (isalpha(c)) {
      if (len < 63) word[len++] = (char)tolower(c);
    } else if (len > 0) {
      word[len] = '\0';
      add_word(word);
      len = 0;
    }
  }
  if (len > 0) {
    word[len] = '\0';
    add_word(word);
  }
  qsort(table, used, sizeof table[0], by_count);
  for (int i = 0; i < used && i < 10; i++) {
    printf("%7d %s\n", table[i].count, table[i].word);
  }
  return 0;
}
