"""Shared parts of scripts/dask/encode_shards.py and train.py: the Dask
client, the plan of tasks (files cut at line boundaries into pieces of about
--task-bytes), running tok on one piece, and the lock on an output folder.

Workers must see the input files and the output folder at the same paths
as the client (a shared file system), and have the tok binary (--tok).

Failures follow one rule: tok refusing its input (exit 1, one `tok: error:`
line) is deterministic, so a task returns it as {"error": ...} instead of
raising, and Dask does not retry it; anything else (a worker lost, tok
killed) raises, and Dask retries the task.
"""
import argparse
import fcntl
import hashlib
import json
import logging
import os
import re
import shutil
import signal
import socket
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
    p.add_argument("-q", "--quiet", action="store_true", help="no line per task; warnings and the summary only")
    p.add_argument("files", nargs="+", metavar="FILE", help="JSONL inputs, in order")


def default_tok() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(here, "..", "..", "build", "tok")
    return os.environ.get("TOK") or shutil.which("tok") or os.path.normpath(built)


def fail(msg: str) -> None:
    print(f"tok: error: {msg}", file=sys.stderr)
    sys.exit(1)


class DataError(Exception):
    """tok refused the input: retrying cannot help."""


def main_guard(main) -> None:
    """Runs main() with tok's failure rule: one `tok: error:` line, exit 1;
    SIGTERM unwinds (locks released) as Ctrl-C does."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        main()
    except (RuntimeError, DataError) as e:
        fail(str(e))
    except OSError as e:
        fail(f"{e.filename}: {e.strerror}" if e.filename else str(e))
    except KeyboardInterrupt:
        sys.exit(130)


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
    # The workers' own log lines (a task's failure, shutdown chatter) would
    # bury tok's one line; the scripts report every failure themselves.
    cluster = LocalCluster(n_workers=args.workers or 2, threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR)
    return Client(cluster), cluster


def close_client(client, cluster) -> None:
    client.close()
    if cluster is not None:
        cluster.close()


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


def lines_before(source, start):
    """Newlines in bytes [0, start) of source: a range's first line is this + 1."""
    n = 0
    with open(source, "rb") as f:
        left = start
        while left > 0:
            block = f.read(min(left, 8 << 20))
            if not block:
                break
            n += block.count(b"\n")
            left -= len(block)
    return n


def name_range(msg, source, start, end, exact_lines=False):
    """tok names a piece fed through stdin `<stdin>:LINE`: name the file
    instead, with the line in the whole file when exact_lines (reads the
    file up to the piece: for the one error of a run), else the byte range."""
    def repl(m):
        line = int(m.group(1))
        if exact_lines:
            return f"{source}:{lines_before(source, start) + line}:"
        return f"{source} (bytes {start}-{end}), line {line} of that range:"
    return re.sub(r"<stdin>:(\d+):", repl, msg)


def run_tok(argv, source, start, end):
    """Runs tok on bytes [start, end) of source, fed through stdin (the whole
    file is passed by name). Returns tok's stderr lines. Raises DataError
    when tok refuses the input, RuntimeError on any other failure."""
    whole = start == 0 and end == os.path.getsize(source)
    if whole:
        r = subprocess.run(argv + [source], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        rc, err = r.returncode, r.stderr
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
            rc = p.wait()
    lines = err.decode(errors="replace").splitlines()
    if rc == 0:
        return lines
    errors = [l for l in lines if l.startswith("tok: error: ")]
    if rc == 1 and errors:
        raise DataError(name_range(errors[-1].removeprefix("tok: error: "), source, start, end,
                                   exact_lines=True))
    detail = lines[-1] if lines else f"exit status {rc}"
    raise RuntimeError(f"{source} bytes {start}-{end}: tok failed: {detail}")


def sha256_file(path, start=0, end=None):
    """sha256 of bytes [start, end) of path (end None: to the end)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        f.seek(start)
        left = float("inf") if end is None else end - start
        while left > 0:
            block = f.read(int(min(left, 1 << 20)))
            if not block:
                break
            h.update(block)
            left -= len(block)
    return h.hexdigest()


def write_json_atomic(path, value):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(value, f, indent=1)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _process_start(pid):
    """The process's start time (clock ticks since boot), to tell a live
    owner from a later process that reuses its pid; None where unknown."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _alive(owner):
    try:
        os.kill(owner["pid"], 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    start = owner.get("start")
    return start is None or _process_start(owner["pid"]) in (None, start)


class OutputLock:
    """OUTDIR/.lock, held for a whole run: JSON naming the owner (pid, host,
    process start). A second run into the same folder is refused while the
    owner lives; a lock left by a dead process on this host is taken over
    (said on stderr). A lock of another host is always respected, since its
    owner cannot be checked from here."""

    def __init__(self, outdir, script):
        self.path = os.path.join(outdir, ".lock")
        self.script = script
        self.me = {"pid": os.getpid(), "host": socket.gethostname(), "start": _process_start(os.getpid()),
                   "script": script}

    def __enter__(self):
        # Runs on this host take the lock one at a time (flock on the folder),
        # so two cannot both take over the same stale lock.
        dir_fd = os.open(os.path.dirname(self.path) or ".", os.O_RDONLY)
        try:
            fcntl.flock(dir_fd, fcntl.LOCK_EX)
            self._acquire()
        finally:
            os.close(dir_fd)
        return self

    def _acquire(self):
        tmp = f"{self.path}.{self.me['pid']}"
        with open(tmp, "w") as f:
            json.dump(self.me, f)
        try:
            for _ in range(2):
                try:
                    os.link(tmp, self.path)  # atomic: fails if a lock exists
                    return
                except FileExistsError:
                    owner = self._owner()
                    if owner is None:
                        continue  # removed meanwhile (its run ended): try again
                    if owner["host"] != self.me["host"] or _alive(owner):
                        raise DataError(
                            f"{self.path}: another run (pid {owner['pid']} on {owner['host']}) is writing "
                            f"into this folder; wait for it to finish, or remove the lock if that run is gone")
                    print(f"tok: note: {self.path}: taking over the lock of pid {owner['pid']} "
                          f"(no longer running)", file=sys.stderr)
                    os.unlink(self.path)
            raise DataError(f"{self.path}: the lock changed hands while taking it over; run again")
        finally:
            os.unlink(tmp)

    def _owner(self):
        try:
            with open(self.path) as f:
                owner = json.load(f)
            if isinstance(owner, dict) and isinstance(owner.get("pid"), int) and isinstance(owner.get("host"), str):
                return owner
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            pass
        raise DataError(f"{self.path}: not a lock this script wrote; if no run is writing into this "
                        f"folder, remove it")

    def __exit__(self, *exc):
        try:
            with open(self.path) as f:
                if json.load(f).get("pid") == self.me["pid"]:
                    os.unlink(self.path)
        except (OSError, ValueError):
            pass
        return False
