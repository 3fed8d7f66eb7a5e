#version 430
// Experiment (float64_solve_steps.py; the product's in rounds 17-21, before trsv_chain.comp): one block step of a triangular solve with ONE right-hand side,
// right-looking and spread over workgroups.  Every workgroup solves the block itself,
// x_k = L_kk^-1 b_k (forward) or L_kk^-T b_k (BACKWARD) -- it is small -- and then
// updates its own 256 rows of the rest: b_i -= L_ik x_k for the rows after the block
// (forward), b_i -= L_ki^T x_k for those before it (backward).  The update is the bulk
// of a solve's reads of L; spread so, it is read by many workgroups at once, not one.
// b is updated in place; workgroup 0 writes the block into x: no workgroup writes
// what another reads in the same dispatch.
layout(local_size_x = 256) in;
#ifndef NB
#define NB 64
#endif
#include "real.glsl"
layout(std430, binding = 0) readonly buffer LBuf { real l[]; };
layout(std430, binding = 1) buffer BBuf { real b[]; };
layout(std430, binding = 2) writeonly buffer XBuf { real x[]; };
uniform int u_m;
uniform int u_ld;
uniform int u_k0;       // the block's first row
uniform int u_nb;       // its order (<= NB)
shared real v[NB];
LOWER_SHARED(Ls);

void main() {
    int t = int(gl_LocalInvocationIndex);
    for (int e = t; e < u_nb * u_nb; e += 256) {
        int i = e / u_nb, j = e % u_nb;
        if (j <= i) AT(Ls, i, j) = l[(u_k0 + i) * u_ld + u_k0 + j];
    }
    if (t < u_nb)
        v[t] = b[u_k0 + t];
    barrier();
    // the block's own substitution: pivot j divided, then the rows after it (before it,
    // backward) updated in parallel
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
    if (gl_WorkGroupID.x == 0u && t < u_nb)
        x[u_k0 + t] = v[t];
    real s = real(0.0);
#ifdef BACKWARD
    int i = int(gl_WorkGroupID.x) * 256 + t;                 // a row before the block:
    if (i < u_k0) {                                          // L's column i, adjacent threads adjacent
        for (int j = 0; j < u_nb; ++j)
            s += l[(u_k0 + j) * u_ld + i] * v[j];
        b[i] -= s;
    }
#else
    int i = u_k0 + u_nb + int(gl_WorkGroupID.x) * 256 + t;   // a row after the block
    if (i < u_m) {
        for (int j = 0; j < u_nb; ++j)
            s += l[i * u_ld + u_k0 + j] * v[j];
        b[i] -= s;
    }
#endif
}
