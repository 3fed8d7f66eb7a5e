#version 430
// method="compute": a whole triangular solve with ONE right-hand side in one dispatch,
// L x = b (forward) or L^T x = b (BACKWARD), one workgroup a block of NB rows.
// Block k needs the solved blocks before it (after it, backward): workgroups pass them
// on through x and a done-flag per block, and each workgroup adds a finished block's
// part as soon as its flag is up -- a chain of blocks in one launch where one dispatch
// a block waited for the launch before it.
// Deadlock-free in any order the driver starts workgroups: a workgroup takes its block
// from a ticket counter when it starts (the first started gets the first block), so
// every block it waits for belongs to a workgroup that started before it.
// sync[0] is the ticket counter, sync[1 + k] block k's flag, sync[1 + u_blocks] set when a
// wait gave up.  Neither counter nor flags are reset between dispatches: this dispatch's
// tickets start at u_base and its flags are u_epoch, new each time, so a value an earlier
// dispatch left is never taken for this one's.  A wait can give up: llvmpipe ends any loop
// after 65,535 iterations (its guard against endless shaders), and a block then goes on
// with its predecessor unsolved; nesting the loops does not lengthen the wait there (its
// counter is not reset when an inner loop starts again: a nested sum stopped at 65,535 terms
// in all).  A wait that ends early says so in sync[1 + u_blocks] and in x[u_m] (x has a slot
// past the solution): the host solves again a block a dispatch (where no workgroup waits), as
// it does from the start on a software renderer.
layout(local_size_x = 256) in;
#ifndef NB
#define NB 64
#endif
#if NB != 64
#error "trsv_chain.comp: 256 threads are a block's 64 rows times 4 quarters of its columns"
#endif
#include "real.glsl"
layout(std430, binding = 0) readonly buffer LBuf { real l[]; };
layout(std430, binding = 1) readonly buffer BBuf { real b[]; };
layout(std430, binding = 2) coherent buffer XBuf { real x[]; };
layout(std430, binding = 3) coherent buffer SBuf { int sync[]; };
uniform int u_m;
uniform int u_ld;
uniform int u_blocks;
uniform int u_base;     // the tickets earlier dispatches took
uniform int u_epoch;    // this dispatch's flag value
#ifdef LISTED
// only the blocks a block depends on (a tile pattern): block k's are
// deps[u_list + u_blocks + 1 + e] for e from deps[u_list + k] to deps[u_list + k + 1]
layout(std430, binding = 4) readonly buffer DBuf { int deps[]; };
uniform int u_list;
#endif
shared int s_block;
shared real part[256];
shared real v[NB];
shared real y[NB];
shared real inv[NB];
LOWER_SHARED(Ls);

void main() {
    int t = int(gl_LocalInvocationIndex);
    if (t == 0) s_block = atomicAdd(sync[0], 1) - u_base;
    barrier();
#ifdef BACKWARD
    int k = u_blocks - 1 - s_block;
#else
    int k = s_block;
#endif
    int r0 = k * NB, nb = min(NB, u_m - r0);
    // the block's own triangle and its pivots' reciprocals first: they wait for nothing
    for (int e = t; e < nb * nb; e += 256) {
        int i = e / nb, j = e % nb;
        if (j <= i) AT(Ls, i, j) = l[(r0 + i) * u_ld + r0 + j];
    }
    if (t < nb) inv[t] = DIV(real(1.0), l[(r0 + t) * u_ld + r0 + t]);
    int r = t & (NB - 1), q = t >> 6;           // row r of the block, quarter q of a block's NB columns
    real acc = real(0.0);
#ifdef LISTED
    int e1 = deps[u_list + k + 1];
    for (int e = deps[u_list + k]; e < e1; ++e) {
        int j = deps[u_list + u_blocks + 1 + e];
#elif defined(BACKWARD)
    for (int j = u_blocks - 1; j > k; --j) {    // x_k needs every block after it: L_jk^T x_j
#else
    for (int j = 0; j < k; ++j) {               // x_k needs every block before it: L_kj x_j
#endif
        if (t == 0) {
            // a long wait where loops are not capped (llvmpipe caps them: see the top)
            while (atomicAdd(sync[1 + j], 0) != u_epoch)
                for (int s = 0; s < 65535 && atomicAdd(sync[1 + j], 0) != u_epoch; ++s)
                    for (int u = 0; u < 65535 && atomicAdd(sync[1 + j], 0) != u_epoch; ++u) { }
            if (atomicAdd(sync[1 + j], 0) != u_epoch)
                atomicExchange(sync[1 + u_blocks], 1);
            memoryBarrierBuffer();
        }
        barrier();
        int c0 = j * NB, nj = min(NB, u_m - c0);
        if (r < nb) {
            for (int c = q * (NB / 4); c < min(nj, (q + 1) * (NB / 4)); ++c)
#ifdef BACKWARD
                acc += l[(c0 + c) * u_ld + r0 + r] * x[c0 + c];    // row c0 + c of L, adjacent threads adjacent
#else
                acc += l[(r0 + r) * u_ld + c0 + c] * x[c0 + c];
#endif
        }
    }
    part[t] = acc;
    barrier();
    if (t < nb)
        v[t] = b[r0 + t] - (part[t] + part[t + NB] + part[t + 2 * NB] + part[t + 3 * NB]);
    barrier();
    // the block's own substitution, one barrier a pivot: each thread takes pivot j's value
    // from v (final since step j - 1) and writes only its own row's; the solution goes to y
#ifdef BACKWARD
    for (int j = nb - 1; j >= 0; --j) {
        real xj = v[j] * inv[j];
        if (t == j) y[j] = xj;
        if (t < j) v[t] -= AT(Ls, j, t) * xj;
        barrier();
    }
#else
    for (int j = 0; j < nb; ++j) {
        real xj = v[j] * inv[j];
        if (t == j) y[j] = xj;
        if (t > j && t < nb) v[t] -= AT(Ls, t, j) * xj;
        barrier();
    }
#endif
    if (t < nb) {
        x[r0 + t] = y[t];
        memoryBarrierBuffer();
    }
    barrier();
    if (t == 0) {
        memoryBarrierBuffer();
        atomicExchange(sync[1 + k], u_epoch);
        // a wait gave up (this direction's or the forward one's): said in x[u_m] too, read back
        // with the solution in one transfer
        if (atomicAdd(sync[1 + u_blocks], 0) != 0)
            x[u_m] = real(1.0);
    }
}
