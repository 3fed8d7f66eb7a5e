#version 430
// method="compute": Cholesky of one NB x NB diagonal block in shared memory (one
// workgroup): the right-looking algorithm (sqrt, normalize, outer-product update --
// Kernels 3-5 of Jung & O'Leary, 2008, with the block in shared memory instead of a
// texture).  The block's upper part is written as zeros.  u_floor >= 0: a pivot not
// above it becomes 1e30 (its direction dropped) or, with u_regularize = 1, sqrt(u_floor)
// -- the interior-point solvers' tiny-pivot rule, as blocked_panel.frag.
layout(local_size_x = 256) in;
#include "real.glsl"
#ifndef NB
#define NB 64
#endif
layout(std430, binding = 0) buffer ABuf { real a[]; };
uniform int u_off;      // element (k0, k0)
uniform int u_ld;
uniform int u_nb;       // the block's order (<= NB; the last block may be smaller)
uniform float u_floor;  // < 0: no floor
uniform int u_regularize;
LOWER_SHARED(S);
#ifndef FP64
shared real piv[NB];
#endif

void main() {
    int t = int(gl_LocalInvocationIndex);
    // bounds known when compiled and reads unmasked (clamped into the block; a read under a
    // per-entry condition waits for the one before it): the loop's reads go out together
    for (int e = t; e < NB * NB; e += 256) {
        int i = e / NB, j = e % NB;
        real v = a[u_off + min(i, u_nb - 1) * u_ld + min(j, u_nb - 1)];
        if (i < u_nb && j <= i) AT(S, i, j) = v;   // the upper part is never read
    }
    barrier();
#ifdef FP64
    for (int k = 0; k < u_nb; ++k) {
        if (t == 0) {
            real s = AT(S, k, k);
            AT(S, k, k) = (u_floor >= 0.0 && !(s > u_floor)) ? real(u_regularize == 1 ? sqrt(u_floor) : 1e30) : SQRT(s);
        }
        barrier();
        real p = AT(S, k, k);
        for (int i = k + 1 + t; i < u_nb; i += 256)
            AT(S, i, k) = DIV(AT(S, i, k), p);
        barrier();
        // the trailing lower triangle, 16 x 16 threads stepping over its rows and columns
        // (no division per entry, no idle half above the diagonal)
        for (int i = k + 1 + (t >> 4); i < u_nb; i += 16) {
            real lik = AT(S, i, k);
            for (int j = k + 1 + (t & 15); j <= i; j += 16)
                AT(S, i, j) -= lik * AT(S, j, k);
        }
        barrier();
    }
#else
    // the same arithmetic with one barrier a step instead of three: every thread takes the
    // pivot's root itself, and the column is normalized where it is used (l_ik = a_ik / p,
    // the same division, so the same bits) and again when the block is written back -- the
    // column itself stays as it was, so no thread waits for another's normalization
    for (int k = 0; k < u_nb; ++k) {
        real s = AT(S, k, k);
        real p = (u_floor >= 0.0 && !(s > u_floor)) ? real(u_regularize == 1 ? sqrt(u_floor) : 1e30) : SQRT(s);
        if (t == 0) piv[k] = p;
        for (int i = k + 1 + (t >> 4); i < u_nb; i += 16) {
            real lik = DIV(AT(S, i, k), p);
            for (int j = k + 1 + (t & 15); j <= i; j += 16)
                AT(S, i, j) -= lik * DIV(AT(S, j, k), p);
        }
        barrier();
    }
    for (int e = t; e < u_nb * u_nb; e += 256) {       // the columns normalized, the pivots in place
        int i = e / u_nb, j = e % u_nb;
        if (j < i) AT(S, i, j) = DIV(AT(S, i, j), piv[j]);
    }
    barrier();
    if (t < u_nb) AT(S, t, t) = piv[t];
    barrier();
#endif
    for (int e = t; e < u_nb * u_nb; e += 256) {
        int i = e / u_nb, j = e % u_nb;
        a[u_off + i * u_ld + j] = (j <= i) ? AT(S, i, j) : real(0.0);
    }
}
