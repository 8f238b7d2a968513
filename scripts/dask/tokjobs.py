"""Shared parts of scripts/dask/tokenize.py and train.py: the Dask client,
the plan of tasks (files cut at line boundaries into pieces of about
--task-bytes), and running tok on one piece.

Workers must see the input files and the output folder at the same paths
as the client (a shared file system), and have the tok binary (--tok).
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys

DEFAULT_TASK_BYTES = 256 << 20


def add_common_args(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="address of a running Dask scheduler (tcp://host:8786)")
    where.add_argument("--workers", type=int, metavar="N",
                       help="start a local cluster of N worker processes (default: 2)")
    p.add_argument("--field", required=True, help="JSON field holding each document's text (dotted path)")
    p.add_argument("--task-bytes", type=int, default=DEFAULT_TASK_BYTES,
                   help="cut input files at line boundaries into tasks of about this many bytes")
    p.add_argument("--tok", default=default_tok(), help="the tok binary on the workers")
    p.add_argument("--threads", type=int, default=1, help="tok threads inside each task")
    p.add_argument("--skip-bad", action="store_true", help="pass --skip-bad to tok (bad lines skipped, counted)")
    p.add_argument("files", nargs="+", metavar="FILE", help="JSONL inputs, in order")


def default_tok() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(here, "..", "..", "build", "tok")
    return os.environ.get("TOK") or shutil.which("tok") or os.path.normpath(built)


def fail(msg: str) -> None:
    print(f"tok: error: {msg}", file=sys.stderr)
    sys.exit(1)


def client_for(args):
    """A Dask client: the given scheduler, or a local cluster of processes."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        fail("the Dask scripts need python3-distributed (apt-get install python3-distributed)")
    # Workers (remote ones too) get this module's code with each task, not an import.
    import cloudpickle
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    if args.scheduler:
        return Client(args.scheduler), None
    cluster = LocalCluster(n_workers=args.workers or 2, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    return Client(cluster), cluster


def plan(files, task_bytes):
    """Tasks (source, start, end) in input order: each file in pieces of
    about task_bytes, every cut just after a newline."""
    tasks = []
    for path in files:
        if not os.path.isfile(path):
            fail(f"{path}: not a file")
        size = os.path.getsize(path)
        start = 0
        with open(path, "rb") as f:
            while start < size:
                end = min(size, start + task_bytes)
                if end < size:
                    f.seek(end)
                    rest = f.readline()  # up to and including the next newline
                    end += len(rest)
                tasks.append((os.path.abspath(path), start, end))
                start = end
        if size == 0:
            tasks.append((os.path.abspath(path), 0, 0))
    return tasks


def run_tok(argv, source, start, end):
    """Runs tok on bytes [start, end) of source, fed through stdin. Errors
    name the source and the byte range (line numbers count from the range)."""
    whole = start == 0 and end == os.path.getsize(source)
    if whole:
        r = subprocess.run(argv + [source], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    else:
        with subprocess.Popen(argv + ["-"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE) as p:
            with open(source, "rb") as f:
                f.seek(start)
                left = end - start
                try:
                    while left > 0:
                        block = f.read(min(left, 8 << 20))
                        if not block:
                            break
                        p.stdin.write(block)
                        left -= len(block)
                    p.stdin.close()
                except BrokenPipeError:
                    pass
            err = p.stderr.read()
            p.wait()
        r = subprocess.CompletedProcess(argv, p.returncode, None, err)
    if r.returncode != 0:
        msg = r.stderr.decode(errors="replace").strip()
        raise RuntimeError(f"{source} bytes {start}-{end}: {msg}")
    return r.stderr.decode(errors="replace")


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_json_atomic(path, value):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(value, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
