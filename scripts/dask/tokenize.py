#!/usr/bin/env python3
"""scripts/dask/tokenize.py -e ENC --field F [--eot] -o OUTDIR FILE...

Tokenizes JSONL files on Dask workers: one task per input file (large files
cut at line boundaries into tasks of about --task-bytes), each running
`tok encode --jsonl F --format u32`. Writes OUTDIR/shard-00000.bin, ... in
input order, whose concatenation is byte-identical to one `tok encode
--jsonl F --format u32` over the same files, and OUTDIR/manifest.json (per
shard: source, byte range, documents, tokens, sha256). A rerun skips the
shards whose manifest entry matches and whose checksum is still right;
failed tasks are retried by Dask.
"""
import argparse
import importlib.util
import os
import sys

# This folder must not be on sys.path: tokenize.py would shadow Python's own
# tokenize module (which Dask and inspect import). tokjobs is loaded by path.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path = [d for d in sys.path if os.path.abspath(d or ".") != _HERE]
_spec = importlib.util.spec_from_file_location("tokjobs", os.path.join(_HERE, "tokjobs.py"))
tokjobs = importlib.util.module_from_spec(_spec)
sys.modules["tokjobs"] = tokjobs
_spec.loader.exec_module(tokjobs)


def encode_task(tok_argv, source, start, end, shard):
    """On a worker: encode one piece into `shard` (tok writes it atomically)."""
    index = shard + ".idx"
    tokjobs.run_tok(tok_argv + ["-o", shard, "--index", index], source, start, end)
    documents = os.path.getsize(index) // 8 - 1
    os.remove(index)
    return {"tokens": os.path.getsize(shard) // 4, "documents": documents,
            "sha256": tokjobs.sha256_file(shard)}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-e", "--encoding", default="o200k_base", help="tok encoding (name or vocabulary file)")
    p.add_argument("--eot", action="store_true", help="end-of-text token after each document")
    p.add_argument("-o", "--output", required=True, metavar="OUTDIR", help="folder for the shards and manifest.json")
    tokjobs.add_common_args(p)
    args = p.parse_args()
    os.makedirs(args.output, exist_ok=True)
    tok_argv = [args.tok, "encode", "-e", args.encoding, "--jsonl", args.field, "--format", "u32",
                "--threads", str(args.threads)]
    if args.eot:
        tok_argv.append("--eot")
    if args.skip_bad:
        tok_argv.append("--skip-bad")
    settings = {"encoding": args.encoding, "field": args.field, "eot": args.eot, "skip_bad": args.skip_bad}
    tasks = tokjobs.plan(args.files, args.task_bytes)
    manifest_path = os.path.join(args.output, "manifest.json")
    old = {}
    if os.path.exists(manifest_path):
        import json
        with open(manifest_path) as f:
            m = json.load(f)
        if m.get("settings") == settings:
            old = {s["shard"]: s for s in m.get("shards", [])}
    shards = [None] * len(tasks)
    todo = []
    for i, (source, start, end) in enumerate(tasks):
        name = f"shard-{i:05d}.bin"
        path = os.path.join(args.output, name)
        entry = {"shard": name, "source": source, "start": start, "end": end}
        prev = old.get(name)
        if (prev and all(prev.get(k) == v for k, v in entry.items()) and os.path.exists(path)
                and tokjobs.sha256_file(path) == prev.get("sha256")):
            shards[i] = prev
        else:
            todo.append((i, entry, path))
    # Shards of an earlier, longer plan would be taken for part of this one.
    for name in os.listdir(args.output):
        if name.startswith("shard-") and name.endswith(".bin") and int(name[6:11]) >= len(tasks):
            os.remove(os.path.join(args.output, name))

    def save():
        tokjobs.write_json_atomic(manifest_path, {
            "settings": settings,
            "shards": [s for s in shards if s is not None],
            "complete": all(s is not None for s in shards)})

    if todo:
        from distributed import as_completed
        client, cluster = tokjobs.client_for(args)
        try:
            futures = {}
            for i, entry, path in todo:
                fut = client.submit(encode_task, tok_argv, entry["source"], entry["start"], entry["end"],
                                    path, key=f"tok-encode-{i}-{entry['start']}", retries=2, pure=False)
                futures[fut] = (i, entry)
            # Completion order is any; the manifest lists shards by index.
            for fut in as_completed(futures):
                i, entry = futures[fut]
                shards[i] = dict(entry, **fut.result())
                save()
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    save()
    total = sum(s["tokens"] for s in shards)
    docs = sum(s["documents"] for s in shards)
    print(f"tokenize.py: {len(shards)} shards ({len(todo)} written, {len(shards) - len(todo)} already done), "
          f"{docs} documents, {total} tokens", file=sys.stderr)


if __name__ == "__main__":
    try:
        main()
    except RuntimeError as e:
        tokjobs.fail(str(e))
