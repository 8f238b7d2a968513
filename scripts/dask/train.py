#!/usr/bin/env python3
"""scripts/dask/train.py --field F --vocab-size N -o OUT FILE...

Trains a byte-level BPE vocabulary on JSONL files with Dask workers: each
task (an input file, or a piece of about --task-bytes cut at line
boundaries) runs `tok train --jsonl F --save-counts`; the word-count tables
are then summed by `tok train --from-counts` on this machine. The result is
byte-identical to `tok train --jsonl F` over the same files on one machine.
The tables are kept in OUT.counts/ (removed with --clean).
"""
import argparse
import importlib.util
import os
import shutil
import subprocess
import sys

# This folder must not be on sys.path: tokenize.py would shadow Python's own
# tokenize module (which Dask and inspect import). tokjobs is loaded by path.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [d for d in sys.path if os.path.abspath(d or ".") != _HERE]
_spec = importlib.util.spec_from_file_location("tokjobs", os.path.join(_HERE, "tokjobs.py"))
tokjobs = importlib.util.module_from_spec(_spec)
sys.modules["tokjobs"] = tokjobs
_spec.loader.exec_module(tokjobs)


def count_task(tok_argv, source, start, end, table):
    tokjobs.run_tok(tok_argv + ["--save-counts", table], source, start, end)
    return table


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--vocab-size", type=int, required=True, help="total ids of the vocabulary")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="writes OUT.tiktoken and OUT.tiktoken.json")
    p.add_argument("--pattern", help="pre-tokenizer (tok train --pattern; default o200k)")
    p.add_argument("--clean", action="store_true", help="remove the count tables afterwards")
    tokjobs.add_common_args(p)
    args = p.parse_args()
    tables_dir = args.output + ".counts"
    os.makedirs(tables_dir, exist_ok=True)
    tok_argv = [args.tok, "train", "-q", "--jsonl", args.field, "--threads", str(args.threads)]
    if args.pattern:
        tok_argv += ["--pattern", args.pattern]
    if args.skip_bad:
        tok_argv.append("--skip-bad")
    tasks = tokjobs.plan(args.files, args.task_bytes)
    client, cluster = tokjobs.client_for(args)
    try:
        futures = [client.submit(count_task, tok_argv, s, a, b, os.path.join(tables_dir, f"part-{i:05d}.counts"),
                                 key=f"tok-count-{i}-{a}", retries=2, pure=False)
                   for i, (s, a, b) in enumerate(tasks)]
        tables = client.gather(futures)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    r = subprocess.run([args.tok, "train", "-q", "--from-counts", *tables, "--vocab-size", str(args.vocab_size),
                        "-o", args.output], stderr=subprocess.PIPE)
    if r.returncode != 0:
        tokjobs.fail(r.stderr.decode(errors="replace").strip().removeprefix("tok: error: "))
    if args.clean:
        shutil.rmtree(tables_dir)
    print(f"train.py: {len(tasks)} tasks, vocabulary {args.output}.tiktoken", file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        tokjobs.fail(str(e))
