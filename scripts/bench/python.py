"""Driver of scripts/bench/python (see there). Environment: TOK, PEERS, CORPUS,
ENC, REPS; PYTHONPATH holds the folder scripts/python printed."""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import tok.tiktoken as tiktoken

TOK, PEERS, CORPUS, ENC = (os.environ[k] for k in ("TOK", "PEERS", "CORPUS", "ENC"))
REPS = int(os.environ.get("REPS", "5"))
CORE = "1" if os.cpu_count() > 1 else "0"

# tiktoken-node: one encode after a warm-up one, in its own process, so its
# rounds interleave with the others.
NODE_JS = r"""
const m = require(process.env.PEERS + '/node_modules/@anysphere/tiktoken-node');
const text = require('fs').readFileSync(process.env.CORPUS, 'utf8');
const e = m.SupportedEncoding[process.env.ENC === 'o200k_base' ? 'O200k' : 'Cl100k'];
(async () => {
  const t = new m.getTokenizer();
  await t.encode(text.slice(0, 100000), e, m.SpecialTokenAction.NormalText, []);
  const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
  const ids = await t.encode(text, e, m.SpecialTokenAction.NormalText, []);
  const c = process.cpuUsage(c0);
  console.log(JSON.stringify({s: Number(process.hrtime.bigint() - t0) / 1e9,
                              cpu: (c.user + c.system) / 1e6, n: ids.length}));
})();
"""


def tok_cli():
    with tempfile.TemporaryFile() as out:
        p = subprocess.run(["taskset", "-c", CORE, TOK, "encode", "--stats", "-e", ENC, CORPUS],
                           stdout=out, stderr=subprocess.PIPE, check=True)
        out.seek(0)
        ids = out.read().split()
    stats = json.loads(p.stderr.decode().strip().splitlines()[-1])
    return stats["encode_ms"] / 1e3, stats.get("encode_cpu_ms", stats["encode_ms"]) / 1e3, ids


def node():
    p = subprocess.run(["taskset", "-c", CORE, "node", "-e", NODE_JS], capture_output=True,
                       check=True, env=dict(os.environ))
    r = json.loads(p.stdout)
    return r["s"], r["cpu"], r["n"]


def main():
    text = open(CORPUS, encoding="utf-8").read()
    mb = len(text.encode("utf-8")) / 1e6
    enc = tiktoken.get_encoding(ENC)
    enc.encode_ordinary(text[:100000])  # vocabulary loaded, caches warm
    os.sched_setaffinity(0, {int(CORE)})
    rows = {"tok.tiktoken encode_ordinary (Python)": [], "tok CLI encode call": [],
            "tiktoken native (@anysphere/tiktoken-node)": []}
    ids = cli_ids = n_node = None
    for _ in range(REPS):
        t0, c0 = time.perf_counter(), time.process_time()
        ids = enc.encode_ordinary(text)
        rows["tok.tiktoken encode_ordinary (Python)"].append(
            (time.perf_counter() - t0, time.process_time() - c0))
        s, cpu, cli_ids = tok_cli()
        rows["tok CLI encode call"].append((s, cpu))
        if ENC in ("o200k_base", "cl100k_base"):
            s, cpu, n_node = node()
            rows["tiktoken native (@anysphere/tiktoken-node)"].append((s, cpu))
    same = [str(i).encode() for i in ids] == cli_ids
    print(f"\n{ENC}: {mb:.1f} MB, {len(ids)} tokens, median of {REPS} interleaved rounds, core {CORE}; "
          f"Python ids == CLI ids: {same}; tiktoken-node tokens: {n_node}; "
          f"load average {open('/proc/loadavg').read().split()[:3]}")
    cli = statistics.median(s for s, _ in rows["tok CLI encode call"])
    cli_cpu = statistics.median(c for _, c in rows["tok CLI encode call"])
    print(f"  {'call':52}{'MB/s':>8}{'vs CLI':>9}{'MB/CPU-s':>10}{'vs CLI':>9}")
    for name, xs in rows.items():
        if not xs:
            continue
        s = statistics.median(x for x, _ in xs)
        c = statistics.median(x for _, x in xs)
        print(f"  {name:52}{mb / s:8.1f}{cli / s:8.2f}x{mb / c:10.1f}{cli_cpu / c:8.2f}x")
    if not same:
        sys.exit("tok: error: Python's ids differ from the CLI's")
    # Batch scaling: 64 KiB documents cut at newlines, all cores allowed.
    os.sched_setaffinity(0, range(os.cpu_count()))
    docs, start = [], 0
    while start < len(text):
        end = text.find("\n", start + 65536)
        end = len(text) if end < 0 else end + 1
        docs.append(text[start:end])
        start = end
    print(f"  encode_ordinary_batch, {len(docs)} documents, {os.cpu_count()} cores:")
    base = one = None
    for threads in (1, 2, 4):
        times = []
        for _ in range(REPS):
            t0 = time.perf_counter()
            out = enc.encode_ordinary_batch(docs, num_threads=threads)
            times.append(time.perf_counter() - t0)
        s = statistics.median(times)
        base = base or s
        one = one or out
        assert out == one, "batch results depend on num_threads"
        print(f"    num_threads={threads}: {mb / s:8.1f} MB/s  {base / s:5.2f}x")


main()
