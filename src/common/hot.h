/*
 * The path of a repeated call (a cached blocking call, a start and wait of a request) kept
 * on few memory pages.
 *
 * With many processes per core, each process resumes after others ran: its TLB and caches
 * are cold, and each page a call touches costs a page walk. Measured on 64 Open MPI
 * processes on 2 cores: before posting its first message, a repeated blocking call spent
 * about twenty times the cycles finding its cached schedule that it spends with warm caches,
 * and every such cycle delays the others, who wait for that process's messages.
 *
 * NHOOD_HOT marks a function of that path: GCC and Clang place it in .text.hot, which the
 * linker gathers, so the path's code lies on one or two pages instead of one per source file.
 * NHOOD_FAST_TLS makes a small per-thread variable of that path initial-exec: read at a fixed
 * offset from the thread pointer instead of through __tls_get_addr (code and tables of the
 * dynamic loader). It takes a few bytes of the static TLS that glibc keeps for libraries
 * loaded later, so it is only for small variables. NHOOD_NOINLINE keeps a rare branch of such a
 * function out of it, so that the common branch saves and restores fewer registers.
 */
#ifndef NHOOD_COMMON_HOT_H
#define NHOOD_COMMON_HOT_H

#if defined(__GNUC__) || defined(__clang__)
#define NHOOD_HOT __attribute__((hot))
#define NHOOD_FAST_TLS __attribute__((tls_model("initial-exec")))
#define NHOOD_NOINLINE __attribute__((noinline))
#else
#define NHOOD_NOINLINE
#define NHOOD_HOT
#define NHOOD_FAST_TLS
#endif

#endif
