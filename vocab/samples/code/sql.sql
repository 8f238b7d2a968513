-- Word frequency counter: given a table of lines, lists the ten most common words.
-- (PostgreSQL)
CREATE TABLE lines (
    id   SERIAL PRIMARY KEY,
    body TEXT NOT NULL
);

WITH words AS (
    SELECT regexp_split_to_table(lower(body), '[^a-z]+') AS word
    FROM lines
)
SELECT word, count(*) AS count
FROM words
WHERE word <> ''
GROUP BY word
ORDER BY count DESC, word
LIMIT 10;
