// What every x86 kernel file compiled with AVX-512 flags starts with:
// <immintrin.h>, and GCC 12's false warnings inside its own AVX-512 headers
// silenced (GCC bug 105593: -Wmaybe-uninitialized on the `__Y = __Y` of
// _mm512_undefined_*, -Wuninitialized where _mm512_reduce_add_ps is inlined
// into an unrolled tile). The pragmas hold for the rest of the including
// file, which is the point. Include only inside the file's
// `#if defined(__x86_64__) || defined(__i386__)`.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

// Full unrolling of the tiles' short constant loops (GCC leaves some rolled
// at -O2, and the accumulators then live on the stack).
#ifndef TOK_UNROLL
#define TOK_UNROLL _Pragma("GCC unroll 16")
#endif
