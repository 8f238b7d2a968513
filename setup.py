"""pip's build of tok's Python package (pyproject.toml; docs/python.md).

setuptools packages python/tok; the extension module tok._tok comes from tok's
own CMake build (tok_build_python in scripts/setup.sh, which scripts/python
runs too) in build-pip/, and the shipped vocabularies are copied into the
package as tok/vocab/, where the module finds them (core/data_dir.cpp).
The version is the CMake project's, the one `tok --version` prints.
"""

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
BUILD_DIR = ROOT / "build-pip"

# What the module reads from vocab/: the .tiktoken encodings, the shipped
# Hugging Face vocabularies and the price catalog, with the READMEs that give
# their provenance. The sample corpora and the model are the CLI's only.
VOCAB_FILES = ["*.tiktoken", "*/tokenizer.json", "*/tokenizer_config.json", "models.json", "README*.md"]


def cmake_version() -> str:
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    m = re.search(r"project\(tok VERSION ([0-9][0-9.]*)", text)
    if not m:
        raise SystemExit("tok: error: setup.py: no `project(tok VERSION ...)` in CMakeLists.txt")
    return m.group(1)


class BuildPyWithVocab(build_py):
    """The Python sources, then vocab/'s files into tok/vocab/."""

    def run(self):
        super().run()
        dest = Path(self.build_lib) / "tok" / "vocab"
        for pattern in VOCAB_FILES:
            for src in sorted((ROOT / "vocab").glob(pattern)):
                target = dest / src.relative_to(ROOT / "vocab")
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, target)


class CMakeBuildExt(build_ext):
    """tok._tok from tok's CMake build instead of setuptools' compiler calls."""

    def build_extension(self, ext):
        # The interpreter itself, not a virtual environment's link to it, so
        # that build-pip/ outlives the environment it was first built for.
        python = os.path.realpath(sys.executable)
        # Progress goes to stderr, a line at each tenth (`pip install -v` shows it).
        subprocess.run(
            ["bash", "-c", 'source "$1/scripts/setup.sh" && tok_build_python "$2" "$3"', "tok_build_python",
             str(ROOT), str(BUILD_DIR), python],
            check=True,
        )
        built = BUILD_DIR / "python" / "tok" / ("_tok" + sysconfig.get_config_var("EXT_SUFFIX"))
        if not built.is_file():
            raise SystemExit(f"tok: error: {built} was not built: build-pip/ was configured for another "
                             "Python; remove build-pip/ and install again")
        dest = Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(built, dest)


BUILD_DIR.mkdir(exist_ok=True)
setup(
    version=cmake_version(),
    ext_modules=[Extension("tok._tok", sources=[])],
    cmdclass={"build_py": BuildPyWithVocab, "build_ext": CMakeBuildExt},
    # setuptools' own scratch files under build-pip/, away from the CMake
    # build/ folder and out of the source tree.
    options={"build": {"build_base": str(BUILD_DIR / "setuptools")}, "egg_info": {"egg_base": str(BUILD_DIR)}},
)
