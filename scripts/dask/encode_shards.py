#!/usr/bin/env python3
"""scripts/dask/encode_shards.py -e ENC --field F [--eot] [tok encode options] -o OUTDIR FILE...

Tokenizes JSONL files on Dask workers: one task per input file (large files
cut at line boundaries into tasks of about --task-bytes), each running
`tok encode --jsonl F` with the tokenizing options given here. Writes
OUTDIR/shard-00000.bin, ... (one per task, in input order; the width grows
past 5 digits so every name of a run sorts in order) and
OUTDIR/manifest.json, which lists the shards of exactly one run in order
with, per shard, its input's size, mtime and content hash. Concatenated in
the manifest's order, the shards are byte-identical to one `tok encode
--jsonl F` over the same files. A rerun keeps the shards whose input and
bytes are unchanged and redoes the rest. OUTDIR is locked for the run.
"""
import argparse
import json
import os
import re
import sys

import tokjobs  # this folder is sys.path[0]; it holds no name of the standard library

# The settings that change a shard's bytes: any change redoes every shard.
SHARD_FIELDS = {"shard": str, "source": str, "start": int, "end": int, "size": int, "mtime_ns": int,
                "input_sha256": str, "tokens": int, "documents": int, "skipped": int,
                "special_as_text": int, "sha256": str}
OURS = re.compile(r"shard-\d+\.bin(\.tmp\.\w{6})?")


def shard_names(n):
    """Names of n shards: 5 digits, more where n needs them, so that the
    names of one run sort in task order (`ls`, `cat shard-*.bin`)."""
    width = max(5, len(str(n - 1)))
    return [f"shard-{i:0{width}d}.bin" for i in range(n)]


def verify_task(source, start, end, prev, shard):
    """On a worker: is a finished shard still right? Its input's bytes and
    its own bytes must hash as recorded (size and mtime were checked)."""
    return (tokjobs.sha256_file(source, start, end) == prev["input_sha256"]
            and tokjobs.sha256_file(shard) == prev["sha256"])


def encode_task(tok_argv, source, start, end, shard):
    """On a worker: encode one piece into `shard` (tok writes it atomically).
    tok refusing the input is returned as {"error": ...}: not retried."""
    before = os.stat(source)
    input_sha = tokjobs.sha256_file(source, start, end)
    try:
        lines = tokjobs.run_tok(tok_argv + ["--stats", "-o", shard], source, start, end)
    except tokjobs.DataError as e:
        return {"error": str(e)}
    after = os.stat(source)
    if (before.st_size, before.st_mtime_ns) != (after.st_size, after.st_mtime_ns):
        raise RuntimeError(f"{source}: changed while being encoded")  # retried by Dask
    stats = json.loads(next(l for l in reversed(lines) if l.startswith("{")))
    warnings = [tokjobs.name_range(l, source, start, end) for l in lines if not l.startswith("{")]
    return {"size": before.st_size, "mtime_ns": before.st_mtime_ns, "input_sha256": input_sha,
            "tokens": stats["tokens"], "documents": stats["documents"], "skipped": stats["skipped"],
            "special_as_text": stats["special_as_text"], "sha256": tokjobs.sha256_file(shard),
            "warnings": warnings}


def read_manifest(path, settings):
    """The shards a manifest of the same settings lists, by name ({} when
    there is none or its settings differ). A damaged one is an error: it
    cannot say which shards to trust."""
    redo = "remove it, and the next run redoes every shard"
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return {}
    except UnicodeDecodeError:
        raise tokjobs.DataError(f"{path}: not UTF-8 text, so not a manifest; {redo}")
    try:
        m = json.loads(text)
    except ValueError as e:
        raise tokjobs.DataError(f"{path}: not valid JSON ({e}: truncated or damaged); {redo}")
    if not isinstance(m, dict) or not isinstance(m.get("shards"), list):
        raise tokjobs.DataError(f"{path}: not a manifest of encode_shards.py (no list of shards); {redo}")
    if m.get("settings") != settings:
        return {}
    old = {}
    for k, s in enumerate(m["shards"]):
        bad = [f for f, t in SHARD_FIELDS.items() if not isinstance(s, dict) or not isinstance(s.get(f), t)]
        if bad:
            raise tokjobs.DataError(f"{path}: shards[{k}] has no valid {', '.join(bad)}; {redo}")
        old[s["shard"]] = s
    return old


def clear_strays(outdir, planned):
    """Removes shard files of an earlier plan (and temporaries of a killed
    tok); refuses any other file named shard-*, which `cat shard-*.bin`
    would take for part of the dataset."""
    for name in sorted(os.listdir(outdir)):
        if not name.startswith("shard-") or name in planned:
            continue
        path = os.path.join(outdir, name)
        if not OURS.fullmatch(name):
            raise tokjobs.DataError(f"{path}: not a shard of this run (shard-*.bin would take it for part "
                                    f"of the dataset); move it out of {outdir}")
        os.remove(path)


def tok_argv(args):
    argv = [args.tok, "encode", "-q", "-e", args.encoding, "--jsonl", args.field, "--format", args.format,
            "--special", args.special, "--threads", str(args.threads)]
    if args.pattern:
        argv += ["--pattern", args.pattern]
    if args.eot_id is not None:
        argv += ["--eot-id", str(args.eot_id)]
    elif args.eot:
        argv.append("--eot")
    if args.add_special:
        argv.append("--add-special")
    if args.skip_bad:
        argv.append("--skip-bad")
    return argv


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("-e", "--encoding", default="o200k_base", help="tok encoding (name or vocabulary file)")
    p.add_argument("--pattern", help="split pattern overriding the vocabulary's (tok encode --pattern)")
    p.add_argument("--special", choices=["text", "allow", "error"], default="text",
                   help="special-token strings in documents: text (default, as tok encode --jsonl), "
                        "allow (encoded as special ids) or error (refused; with --skip-bad, skipped)")
    p.add_argument("--eot", action="store_true", help="end-of-text token after each document")
    p.add_argument("--eot-id", type=int, metavar="N", help="this id after each document (implies --eot)")
    p.add_argument("--add-special", action="store_true", help="BOS/EOS as the vocabulary's metadata asks")
    p.add_argument("--format", choices=["u32", "u16"], default="u32", help="shard format (default u32)")
    p.add_argument("-o", "--output", required=True, metavar="OUTDIR", help="folder for the shards and manifest.json")
    tokjobs.add_common_args(p)
    return p.parse_args()


def settings_of(args):
    return {"encoding": args.encoding, "pattern": args.pattern, "field": args.field, "special": args.special,
            "eot": args.eot or args.eot_id is not None, "eot_id": args.eot_id, "add_special": args.add_special,
            "format": args.format, "skip_bad": args.skip_bad}


def main():
    args = parse_args()
    os.makedirs(args.output, exist_ok=True)
    with tokjobs.OutputLock(args.output, "encode_shards.py"):
        run(args)


def run(args):
    settings = settings_of(args)
    id_bytes = 2 if args.format == "u16" else 4
    tasks = tokjobs.plan(args.files, args.task_bytes)
    names = shard_names(len(tasks))
    manifest_path = os.path.join(args.output, "manifest.json")
    old = read_manifest(manifest_path, settings)
    clear_strays(args.output, set(names))

    # Candidates to keep: same piece, same input size and mtime, shard of
    # the recorded length; their hashes are checked on the workers.
    shards = [None] * len(tasks)
    candidates = []
    for i, (source, start, end) in enumerate(tasks):
        prev = old.get(names[i])
        path = os.path.join(args.output, names[i])
        st = os.stat(source)
        if (prev and (prev["source"], prev["start"], prev["end"]) == (source, start, end)
                and (prev["size"], prev["mtime_ns"]) == (st.st_size, st.st_mtime_ns)
                and os.path.isfile(path) and os.path.getsize(path) == prev["tokens"] * id_bytes):
            candidates.append(i)

    def save(complete):
        tokjobs.write_json_atomic(manifest_path, {
            "settings": settings,
            "order": "shards in input order: concatenate them in this order",
            "shards": [s for s in shards if s is not None],
            "complete": complete})

    from distributed import as_completed
    client, cluster = tokjobs.client_for(args)
    written = 0
    try:
        checks = [client.submit(verify_task, *tasks[i], old[names[i]], os.path.join(args.output, names[i]),
                                key=f"tok-verify-{i}", pure=False) for i in candidates]
        for i, ok in zip(candidates, client.gather(checks)):
            if ok:
                shards[i] = old[names[i]]
        # From here on the folder holds only shards the manifest lists (and
        # those being written), so it never describes two runs.
        todo = [i for i in range(len(tasks)) if shards[i] is None]
        for i in todo:
            path = os.path.join(args.output, names[i])
            if os.path.exists(path):
                os.remove(path)
        save(False)
        argv = tok_argv(args)
        futures = {client.submit(encode_task, argv, *tasks[i], os.path.join(args.output, names[i]),
                                 key=f"tok-encode-{i}-{tasks[i][1]}", retries=2, pure=False): i for i in todo}
        for fut in as_completed(futures):
            i = futures[fut]
            r = fut.result()
            if "error" in r:
                client.cancel(list(futures))
                raise tokjobs.DataError(r["error"])
            for w in r.pop("warnings"):
                print(w, file=sys.stderr)
            source, start, end = tasks[i]
            shards[i] = dict({"shard": names[i], "source": source, "start": start, "end": end}, **r)
            written += 1
            save(False)
            if not args.quiet:
                print(f"encode_shards.py: {names[i]} ({written}/{len(todo)}): {r['documents']} documents, "
                      f"{r['tokens']} tokens", file=sys.stderr)
    finally:
        tokjobs.close_client(client, cluster)
    save(True)
    total = {k: sum(s[k] for s in shards) for k in ("tokens", "documents", "skipped", "special_as_text")}
    quoted = (f", {total['special_as_text']} quoting special tokens (encoded as text)"
              if args.special == "text" else "")
    print(f"encode_shards.py: {len(shards)} shards ({written} written, {len(shards) - written} already done), "
          f"{total['documents']} documents, {total['tokens']} tokens, {total['skipped']} bad lines skipped"
          f"{quoted}", file=sys.stderr)


if __name__ == "__main__":
    tokjobs.main_guard(main)
