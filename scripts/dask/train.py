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
import os
import re
import shutil
import subprocess
import sys

import tokjobs  # this folder is sys.path[0]; it holds no name of the standard library


def count_task(tok_argv, source, start, end, table):
    """On a worker: the word counts of one piece, its documents and skipped
    lines (from tok train's summary) and tok's warnings. tok refusing the
    input is returned as {"error": ...}: not retried."""
    try:
        lines = tokjobs.run_tok(tok_argv + ["--save-counts", table], source, start, end)
    except tokjobs.DataError as e:
        return {"error": str(e)}
    summary = next(re.search(r"\((\d+) documents, (\d+) bad lines skipped\)", l)
                   for l in lines if l.startswith("tok: train: "))
    return {"table": table, "documents": int(summary.group(1)), "skipped": int(summary.group(2)),
            "warnings": [tokjobs.name_range(l, source, start, end) for l in lines
                         if not l.startswith("tok: train: ")]}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--vocab-size", type=int, required=True, help="total ids of the vocabulary")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="writes OUT.tiktoken and OUT.tiktoken.json")
    p.add_argument("--pattern", help="pre-tokenizer (tok train --pattern; default o200k)")
    p.add_argument("--special-token", action="append", default=[], metavar="TEXT",
                   help="a special token after the learned ones (repeatable; tok train --special-token)")
    p.add_argument("--min-frequency", type=int, help="never merge a pair seen fewer times (tok train)")
    p.add_argument("--max-token-bytes", type=int, help="never create a token longer than this (tok train)")
    p.add_argument("--format", choices=["tiktoken", "hf", "all"], help="output files (tok train --format)")
    p.add_argument("--clean", action="store_true", help="remove the count tables afterwards")
    tokjobs.add_common_args(p)
    args = p.parse_args()
    tables_dir = args.output + ".counts"
    os.makedirs(tables_dir, exist_ok=True)
    tok_argv = [args.tok, "train", "--jsonl", args.field, "--threads", str(args.threads)]
    if args.pattern:
        tok_argv += ["--pattern", args.pattern]
    if args.skip_bad:
        tok_argv.append("--skip-bad")
    merge_argv = [args.tok, "train", "-q", "--vocab-size", str(args.vocab_size), "-o", args.output]
    for s in args.special_token:
        merge_argv += ["--special-token", s]
    for flag, value in (("--min-frequency", args.min_frequency), ("--max-token-bytes", args.max_token_bytes),
                        ("--format", args.format)):
        if value is not None:
            merge_argv += [flag, str(value)]
    tasks = tokjobs.plan(args.files, args.task_bytes)
    tables = [None] * len(tasks)
    documents = skipped = 0
    from distributed import as_completed
    client, cluster = tokjobs.client_for(args)
    try:
        futures = {client.submit(count_task, tok_argv, s, a, b, os.path.join(tables_dir, f"part-{i:05d}.counts"),
                                 key=f"tok-count-{i}-{a}", retries=2, pure=False): i
                   for i, (s, a, b) in enumerate(tasks)}
        for done, fut in enumerate(as_completed(futures), 1):
            r = fut.result()
            if "error" in r:
                client.cancel(list(futures))
                raise tokjobs.DataError(r["error"])
            for w in r["warnings"]:
                print(w, file=sys.stderr)
            tables[futures[fut]] = r["table"]
            documents += r["documents"]
            skipped += r["skipped"]
            if not args.quiet:
                print(f"train.py: counted {os.path.basename(r['table'])} ({done}/{len(tasks)}): "
                      f"{r['documents']} documents", file=sys.stderr)
    finally:
        tokjobs.close_client(client, cluster)
    r = subprocess.run(merge_argv + ["--from-counts", *tables], stderr=subprocess.PIPE)
    if r.returncode != 0:
        tokjobs.fail(r.stderr.decode(errors="replace").strip().removeprefix("tok: error: "))
    if args.clean:
        shutil.rmtree(tables_dir)
    print(f"train.py: {len(tasks)} tasks, {documents} documents, {skipped} bad lines skipped, "
          f"vocabulary {args.output}.tiktoken", file=sys.stderr)


if __name__ == "__main__":
    tokjobs.main_guard(main)
