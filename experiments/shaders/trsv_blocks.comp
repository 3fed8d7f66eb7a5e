#version 430
// Experiment (float64_solve_steps.py; the product's until trsv_spread.comp): one block step of a triangular solve with ONE right-hand side,
// left-looking: x_k = L_kk^-1 (b_k - L_k,<k x_<k) forward, or, with BACKWARD,
// x_k = L_kk^-T (y_k - L_>k,k^T x_>k) -- the whole step in one workgroup, so a solve
// is m/NB dependent dispatches, not 2 m/NB (the float64 factor's solves: a chain of
// dispatches, not bandwidth, bounds them).  256 threads: each row (column, backward)
// of the block summed by 4 threads over the rest, then the block solved in shared memory.
layout(local_size_x = 256) in;
#ifndef NB
#define NB 64
#endif
#include "real.glsl"
layout(std430, binding = 0) readonly buffer LBuf { real l[]; };
layout(std430, binding = 1) buffer XBuf { real x[]; };
uniform int u_m;
uniform int u_ld;
uniform int u_k0;       // the block's first row
uniform int u_nb;       // its order (<= NB)
shared real part[4][NB];
shared real v[NB];
LOWER_SHARED(Ls);

void main() {
    int t = int(gl_LocalInvocationIndex);
    int r = t % NB, q = t / NB;          // row r of the block, quarter q of the sum
    for (int e = t; e < u_nb * u_nb; e += 256) {
        int i = e / u_nb, j = e % u_nb;
        if (j <= i) AT(Ls, i, j) = l[(u_k0 + i) * u_ld + u_k0 + j];
    }
    real s = real(0.0);
    if (r < u_nb) {
#ifdef BACKWARD
        // sum_{j > block} L[j, k0 + r] x_j: threads of one q read one row j, r adjacent
        for (int j = u_k0 + u_nb + q; j < u_m; j += 4)
            s += l[j * u_ld + u_k0 + r] * x[j];
#else
        for (int j = q; j < u_k0; j += 4)
            s += l[(u_k0 + r) * u_ld + j] * x[j];
#endif
    }
    part[q][r] = s;
    barrier();
    if (t < u_nb)
        v[t] = x[u_k0 + t] - ((part[0][t] + part[1][t]) + (part[2][t] + part[3][t]));
    barrier();
    // the block's own substitution: pivot j divided, then the rows after it (before it,
    // backward) updated in parallel -- each row's terms in the order a row-by-row sweep takes
#ifdef BACKWARD
    for (int j = u_nb - 1; j >= 0; --j) {
        if (t == j) v[j] = DIV(v[j], AT(Ls, j, j));
        barrier();
        if (t < j) v[t] -= AT(Ls, j, t) * v[j];
        barrier();
    }
#else
    for (int j = 0; j < u_nb; ++j) {
        if (t == j) v[j] = DIV(v[j], AT(Ls, j, j));
        barrier();
        if (t > j && t < u_nb) v[t] -= AT(Ls, t, j) * v[j];
        barrier();
    }
#endif
    if (t < u_nb)
        x[u_k0 + t] = v[t];
}
