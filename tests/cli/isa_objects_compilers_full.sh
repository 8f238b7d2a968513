#!/usr/bin/env bash
# tests/cli/isa_objects.sh with every file that has ISA flags compiled again by
# GCC and by clang (scripts/test --full installs clang): the build here may
# have used either, and each inlines differently.
TOK_ISA_COMPILERS="g++ clang++" exec bash "$(dirname "$0")/isa_objects.sh"
