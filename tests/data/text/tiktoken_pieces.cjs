// Prints the pieces that tiktoken's own regex engine (fancy-regex, compiled to
// wasm in the npm package `tiktoken`) cuts a text into, for cross-checking the
// hand scanners. tiktoken does not expose pieces, so each text gets a
// throwaway vocabulary holding every byte and every substring of the text:
// BPE then merges each piece into exactly one token, and the tokens are the
// pieces.
//
// usage: NODE_PATH=/root/.cache/tok/npm/node_modules node tiktoken_pieces.cjs PATTERN < texts.jsonl
// Each input line is a JSON string; each output line is a JSON array of pieces.
const { Tiktoken } = require("tiktoken");
const readline = require("readline");

const pattern = process.argv[2];
const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const text = JSON.parse(line);
  const bytes = Buffer.from(text, "utf8");
  const seen = new Map();
  const lines = [];
  for (let b = 0; b < 256; b++) {
    const k = Buffer.from([b]).toString("base64");
    seen.set(k, lines.length);
    lines.push(`${k} ${lines.length}`);
  }
  for (let len = 2; len <= bytes.length; len++) {
    for (let i = 0; i + len <= bytes.length; i++) {
      const k = bytes.subarray(i, i + len).toString("base64");
      if (!seen.has(k)) {
        seen.set(k, lines.length);
        lines.push(`${k} ${lines.length}`);
      }
    }
  }
  const enc = new Tiktoken(lines.join("\n") + "\n", {}, pattern);
  const ids = enc.encode_ordinary(text);
  const pieces = Array.from(ids, (id) => Buffer.from(enc.decode_single_token_bytes(id)).toString("utf8"));
  enc.free();
  console.log(JSON.stringify(pieces));
});
