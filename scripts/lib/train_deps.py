"""Debian packages the tiny-model trainer needs, installed before torch is
imported (scripts/train-tiny-model).

PyTorch from Debian (python3-torch) links libblas.so.3, which without
another provider is the netlib reference BLAS: on this project's 2-core
machines that trained the default model at 250 tokens/s. With OpenBLAS as
the provider (libopenblas0-openmp, picked up through Debian's alternatives)
the same run makes 5,900 tokens/s on one core, so it is installed too."""
import os
import shutil
import subprocess
import sys

PACKAGES = ["python3-torch", "python3-numpy", "libopenblas0-openmp", "sword-text-web", "diatheke"]


def installed(pkg):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg], capture_output=True, text=True)
    return r.returncode == 0 and "install ok installed" in r.stdout


def ensure():
    if not shutil.which("dpkg-query"):
        return  # not Debian: the user provides torch, numpy and diatheke
    missing = [p for p in PACKAGES if not installed(p)]
    if not missing:
        return
    line = "apt-get install -y " + " ".join(missing)
    if os.geteuid() != 0:
        sys.exit(f"train-tiny-model: error: missing packages; run: sudo {line}")
    print(f"[train-tiny-model] installing {' '.join(missing)}", file=sys.stderr, flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    r = subprocess.run(f"apt-get update -qq && {line} -qq", shell=True, env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        sys.exit(f"train-tiny-model: error: {line} failed")


def blas_library():
    """Path of the BLAS that libblas.so.3 resolves to (for the log)."""
    try:
        return os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")
    except OSError:
        return "unknown"
