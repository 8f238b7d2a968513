// Word frequency counter: reads text on stdin, prints the ten most common words.
use std::collections::HashMap;
use std::io::{self, Read};

fn count_words(text: &str) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for word in text
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
    {
        *counts.entry(word.to_lowercase()).or_insert(0) += 1;
    }
    counts
}

fn main() -> io::Result<()> {
    let mut text = String::new();
    io::stdin().read_to_string(&mut text)?;
    let mut ranked: Vec<(String, usize)> = count_words(&text).into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    for (word, count) in ranked.iter().take(10) {
        println!("{:7} {}", count, word);
    }
    Ok(())
}
