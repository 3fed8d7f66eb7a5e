#version 430
// Experiment (experiments/cholesky_panel_variants.py): trsm_rows.comp with each unknown's sum
// split over 4 accumulators (terms l = 0, 4, 8, ... in the first, 1, 5, ... in the second, ...,
// added at the end): the chain of dependent multiply-adds a row waits on is a quarter as long
// (the sums' order changes, so the bits do).  float32 only.
layout(local_size_x = 64) in;
#include "real.glsl"
#ifndef FP64
// float32: every loop over NB unrolled, so the row's x[] lives in registers (a run-time-
// indexed private array is kept in local memory); the float64 build unrolled spilled more
#pragma optionNV(unroll all)
#endif
#ifndef NB
#define NB 64
#endif
layout(std430, binding = 0) buffer ABuf { real a[]; };
layout(std430, binding = 1) readonly buffer LBuf { real l[]; };
uniform int u_loff;     // element (k0, k0) of L: L11
uniform int u_ldl;
uniform int u_aoff;     // element (r0, k0) of A: the first row of A21
uniform int u_ld;
uniform int u_nb;
uniform int u_rows;
#ifdef LISTED
// only the panel's tiles that may be nonzero (the float64 factor on a tile pattern): workgroup
// w takes the NB rows of tile row tiles[u_list + w], counted from the panel's first row
layout(std430, binding = 2) readonly buffer TBuf { int tiles[]; };
uniform int u_list;
#endif
LOWER_SHARED(Ls);

void main() {
    int t = int(gl_LocalInvocationIndex);
    for (int e = t; e < u_nb * u_nb; e += 64) {
        int i = e / u_nb, j = e % u_nb;
        if (j <= i) AT(Ls, i, j) = l[u_loff + i * u_ldl + j];   // the upper part is never read
    }
    barrier();
#ifdef LISTED
    int i = tiles[u_list + int(gl_WorkGroupID.x)] * NB + int(gl_LocalInvocationID.x);
#else
    int i = int(gl_GlobalInvocationID.x);
#endif
    if (i >= u_rows) return;
    PRIV x[NB];
    for (int j = 0; j < NB; ++j)
        x[j] = TO_PRIV(j < u_nb ? a[u_aoff + i * u_ld + j] : real(0.0));
    for (int j = 0; j < NB; ++j) {
        if (j >= u_nb) break;
        real s0 = FROM_PRIV(x[j]), s1 = real(0.0), s2 = real(0.0), s3 = real(0.0);
        int l = 0;
        for (; l + 4 <= j; l += 4) {
            s0 -= FROM_PRIV(x[l]) * AT(Ls, j, l);
            s1 -= FROM_PRIV(x[l + 1]) * AT(Ls, j, l + 1);
            s2 -= FROM_PRIV(x[l + 2]) * AT(Ls, j, l + 2);
            s3 -= FROM_PRIV(x[l + 3]) * AT(Ls, j, l + 3);
        }
        for (; l < j; ++l)
            s0 -= FROM_PRIV(x[l]) * AT(Ls, j, l);
        x[j] = TO_PRIV(DIV((s0 + s1) + (s2 + s3), AT(Ls, j, j)));
    }
    for (int j = 0; j < NB; ++j)
        if (j < u_nb) a[u_aoff + i * u_ld + j] = FROM_PRIV(x[j]);
}
