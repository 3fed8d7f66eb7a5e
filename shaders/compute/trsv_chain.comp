#version 430
// method="compute": a whole triangular solve with KCOLS right-hand sides (default 1) in one
// dispatch, L x = b (forward) or L^T x = b (BACKWARD), one workgroup a block of NB rows.
// The right-hand sides are rows of b and x, u_ldx numbers apart, each with a slot past its
// solution; every column's sums are the one-column kernel's, in the same order.
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
#ifndef FP64
#pragma optionNV(unroll all)
#endif
#ifndef KCOLS
#define KCOLS 1
#endif
layout(std430, binding = 0) readonly buffer LBuf { real l[]; };
layout(std430, binding = 1) readonly buffer BBuf { real b[]; };
layout(std430, binding = 2) coherent buffer XBuf { real x[]; };
layout(std430, binding = 3) coherent buffer SBuf { int sync[]; };
uniform int u_m;
uniform int u_ldx;      // numbers between two right-hand sides (rows of b and x)
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
shared real part[KCOLS][256];
shared real v[KCOLS][NB];
shared real y[KCOLS][NB];
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
    real acc[KCOLS];
    for (int cc = 0; cc < KCOLS; ++cc) acc[cc] = real(0.0);
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
            for (int c = q * (NB / 4); c < min(nj, (q + 1) * (NB / 4)); ++c) {
#ifdef BACKWARD
                real lv = l[(c0 + c) * u_ld + r0 + r];              // row c0 + c of L, adjacent threads adjacent
#else
                real lv = l[(r0 + r) * u_ld + c0 + c];
#endif
                for (int cc = 0; cc < KCOLS; ++cc) acc[cc] += lv * x[cc * u_ldx + c0 + c];
            }
        }
    }
    for (int cc = 0; cc < KCOLS; ++cc) part[cc][t] = acc[cc];
    barrier();
    if (t < nb)
        for (int cc = 0; cc < KCOLS; ++cc)
            v[cc][t] = b[cc * u_ldx + r0 + t] - (part[cc][t] + part[cc][t + NB] + part[cc][t + 2 * NB] + part[cc][t + 3 * NB]);
    barrier();
    // the block's own substitution, one barrier a pivot: each thread takes pivot j's value
    // from v (final since step j - 1) and writes only its own row's; the solution goes to y
#ifdef BACKWARD
    for (int j = nb - 1; j >= 0; --j) {
        for (int cc = 0; cc < KCOLS; ++cc) {
            real xj = v[cc][j] * inv[j];
            if (t == j) y[cc][j] = xj;
            if (t < j) v[cc][t] -= AT(Ls, j, t) * xj;
        }
        barrier();
    }
#else
    for (int j = 0; j < nb; ++j) {
        for (int cc = 0; cc < KCOLS; ++cc) {
            real xj = v[cc][j] * inv[j];
            if (t == j) y[cc][j] = xj;
            if (t > j && t < nb) v[cc][t] -= AT(Ls, t, j) * xj;
        }
        barrier();
    }
#endif
    if (t < nb) {
        for (int cc = 0; cc < KCOLS; ++cc) x[cc * u_ldx + r0 + t] = y[cc][t];
        memoryBarrierBuffer();
    }
    barrier();
    if (t == 0) {
        memoryBarrierBuffer();
        atomicExchange(sync[1 + k], u_epoch);
        // a wait gave up (this direction's or the forward one's): said in x[u_m] too, read back
        // with the solution in one transfer
        if (atomicAdd(sync[1 + u_blocks], 0) != 0)
            for (int cc = 0; cc < KCOLS; ++cc) x[cc * u_ldx + u_m] = real(1.0);
    }
}
