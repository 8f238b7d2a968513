"""Driver of scripts/bench/python (see there). Environment: TOK, PEERS, CORPUS,
ENC, REPS, BATCH_ONLY; PYTHONPATH holds the folder scripts/python printed."""

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
BATCH_ONLY = os.environ.get("BATCH_ONLY") == "1"
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


# tok.tiktoken's first encode_ordinary of the corpus in a process of its own,
# as the CLI's call is: after loading and a 100 KB warm-up, with the piece
# caches that warm-up left, not those of earlier rounds.
FIRST_PY = r"""
import os, sys, time
import tok.tiktoken as tiktoken
text = open(os.environ["CORPUS"], encoding="utf-8").read()
enc = tiktoken.get_encoding(os.environ["ENC"])
enc.encode_ordinary(text[:100000])
t0, c0 = time.perf_counter(), time.process_time()
ids = enc.encode_ordinary(text)
print(time.perf_counter() - t0, time.process_time() - c0, len(ids))
"""


def first_call():
    p = subprocess.run(["taskset", "-c", CORE, sys.executable, "-c", FIRST_PY],
                       capture_output=True, check=True, env=dict(os.environ))
    s, cpu, n = p.stdout.split()
    return float(s), float(cpu), int(n)


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
    if not BATCH_ONLY:
        single_call(enc, text, mb)
    data = text.encode("utf-8")
    print(f"\n{ENC} batches:")
    batch_scaling(enc, "short", cut(data, 100, 40000))
    batch_scaling(enc, "long", cut(data, 100_000, 100))


def single_call(enc, text, mb):
    os.sched_setaffinity(0, {int(CORE)})
    rows = {"tok.tiktoken encode_ordinary (Python)": [],
            "tok.tiktoken encode_ordinary, first call": [], "tok CLI encode call": [],
            "tiktoken native (@anysphere/tiktoken-node)": []}
    ids = cli_ids = n_node = None
    for _ in range(REPS):
        # The previous round's list is freed before the timer starts: its
        # 6 million references are dropped by the assignment, not the call.
        ids = None
        t0, c0 = time.perf_counter(), time.process_time()
        ids = enc.encode_ordinary(text)
        rows["tok.tiktoken encode_ordinary (Python)"].append(
            (time.perf_counter() - t0, time.process_time() - c0))
        s, cpu, n_first = first_call()
        rows["tok.tiktoken encode_ordinary, first call"].append((s, cpu))
        if n_first != len(ids):
            sys.exit("tok: error: the first call's token count differs from encode_ordinary's")
        s, cpu, cli_ids = tok_cli()
        rows["tok CLI encode call"].append((s, cpu))
        if ENC in ("o200k_base", "cl100k_base"):
            s, cpu, n_node = node()
            rows["tiktoken native (@anysphere/tiktoken-node)"].append((s, cpu))
    same = [str(i).encode() for i in ids] == cli_ids
    if not same:
        sys.exit("tok: error: Python's ids differ from the CLI's")
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
    os.sched_setaffinity(0, range(os.cpu_count()))


def cut(data, size, count):
    """count texts of about `size` bytes from the corpus (cut at UTF-8
    character starts, wrapping around), as str."""
    out, at = [], 0
    while len(out) < count:
        if at >= len(data) - size:
            at = 0
        end = at + size
        while end < len(data) and 0x80 <= data[end] < 0xC0:
            end += 1
        out.append(data[at:end].decode("utf-8"))
        at = end
    return out


def batch_scaling(enc, label, texts):
    """encode_ordinary_batch and encode_batch on 1 and 2 threads, interleaved
    round by round, all cores allowed; ratios only once every call's ids
    equal encode_ordinary's, text by text. Beside the wall-clock ratio, the
    ratio a machine with two free cores would give at most: 1-thread CPU time
    over the 2-thread call's busier thread (the caller or the other one)."""
    mb = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    want = [enc.encode_ordinary(t) for t in texts]
    calls = {(name, threads): (lambda f=f, n=threads: f(texts, num_threads=n))
             for name, f in (("encode_ordinary_batch", enc.encode_ordinary_batch),
                             ("encode_batch", enc.encode_batch))
             for threads in (1, 2)}
    wall, cpu, caller = ({k: [] for k in calls} for _ in range(3))
    for _ in range(REPS):
        for k, call in calls.items():
            t0, c0, m0 = time.perf_counter(), time.process_time(), time.thread_time()
            got = call()
            wall[k].append(time.perf_counter() - t0)
            cpu[k].append(time.process_time() - c0)
            caller[k].append(time.thread_time() - m0)
            if got != want:
                sys.exit(f"tok: error: {k[0]}(num_threads={k[1]}) ids differ from encode_ordinary's")
            del got
    print(f"  {label} texts: {len(texts)} of about {mb * 1e6 / len(texts):.0f} B ({mb:.1f} MB), "
          f"{os.cpu_count()} cores, ids identical; load average "
          f"{open('/proc/loadavg').read().split()[:3]}")
    med = statistics.median
    for name in ("encode_ordinary_batch", "encode_batch"):
        one, two = med(wall[(name, 1)]), med(wall[(name, 2)])
        busier = med(max(m, c - m) for m, c in zip(caller[(name, 2)], cpu[(name, 2)]))
        print(f"    {name:24} 1 thread {mb / one:7.1f} MB/s  2 threads {mb / two:7.1f} MB/s"
              f"  {one / two:5.2f}x   CPU-time bound {med(cpu[(name, 1)]) / busier:5.2f}x")


main()
