#version 430
// method="compute": the panel below a factored diagonal block, L21 = A21 L11^-T, in
// place: one thread per row, forward substitution against L11 held in shared memory
// (L11 from LBuf: the same buffer inside one matrix, the diagonal tile for a tiled one).
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
    // bounds known when compiled and reads unmasked (clamped into the block; a read under a
    // per-entry condition waits for the one before it): the loop's reads go out together
    for (int e = t; e < NB * NB; e += 64) {
        int i = e / NB, j = e % NB;
        real v = l[u_loff + min(i, u_nb - 1) * u_ldl + min(j, u_nb - 1)];
        if (i < u_nb && j <= i) AT(Ls, i, j) = v;   // the upper part is never read
    }
    barrier();
#ifdef LISTED
    int i = tiles[u_list + int(gl_WorkGroupID.x)] * NB + int(gl_LocalInvocationID.x);
#else
    int i = int(gl_GlobalInvocationID.x);
#endif
    if (i >= u_rows) return;
    PRIV x[NB];
    for (int j = 0; j < NB; ++j) {
        real v = a[u_aoff + i * u_ld + min(j, u_nb - 1)];     // unmasked, as above
        x[j] = TO_PRIV(j < u_nb ? v : real(0.0));
    }
    for (int j = 0; j < NB; ++j) {
        if (j >= u_nb) break;
        real s = FROM_PRIV(x[j]);
        for (int l = 0; l < j; ++l)
            s -= FROM_PRIV(x[l]) * AT(Ls, j, l);
        x[j] = TO_PRIV(DIV(s, AT(Ls, j, j)));
    }
    for (int j = 0; j < NB; ++j)
        if (j < u_nb) a[u_aoff + i * u_ld + j] = FROM_PRIV(x[j]);
}
