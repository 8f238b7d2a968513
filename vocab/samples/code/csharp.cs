// Word frequency counter: reads text on stdin, prints the ten most common words.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Text.RegularExpressions;

public static class WordCount
{
    public static void Main()
    {
        var counts = new Dictionary<string, int>();
        string text = Console.In.ReadToEnd().ToLowerInvariant();
        foreach (Match m in Regex.Matches(text, "[a-z]+"))
        {
            counts.TryGetValue(m.Value, out int n);
            counts[m.Value] = n + 1;
        }
        var ranked = counts.OrderByDescending(kv => kv.Value).ThenBy(kv => kv.Key).Take(10);
        foreach (var kv in ranked)
        {
            Console.WriteLine($"{kv.Value,7} {kv.Key}");
        }
    }
}
