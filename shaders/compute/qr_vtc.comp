#version 430
// method="compute": the Apply's first product, W = V^T C for one panel's reflectors
// and the columns of C, split over chunks of rows so that a tall panel fills the
// chip: workgroup (x, y) sums 64 columns of W over chunk y's u_rows rows (16 at a
// time through shared memory, 2 x 4 entries per thread) into its own partial,
// Wp[y] (NBQ x u_nc); qr_wsum.comp adds the partials in a fixed order.
// GRAM: C is V itself (u_nc = u_kb): the partials of V^T V, for qr_t.comp.
// FP64: the same in double.
layout(local_size_x = 256) in;
#include "real.glsl"
layout(std430, binding = 0) readonly buffer ABuf { real qa[]; };
#ifndef GRAM
layout(std430, binding = 1) readonly buffer CBuf { real cc[]; };
#endif
layout(std430, binding = 2) writeonly buffer WBuf { real wp[]; };
#include "qr_common.glsl"
uniform int u_m;
uniform int u_ld;            // of A (the reflectors)
uniform int u_j0;
uniform int u_kb;
uniform int u_ldc;
uniform int u_c0;            // C's first column
uniform int u_nc;            // C's columns
uniform int u_rows;          // rows per chunk, a multiple of RS
#define RS 16
shared real Vs[RS][NBQ];
shared real4 Cs[RS][16];

real c_at(int i, int q) {
#ifdef GRAM
    return q < u_kb ? v_at(i, q, u_j0, u_ld) : real(0.0);
#else
    return q < u_nc ? cc[i * u_ldc + u_c0 + q] : real(0.0);
#endif
}

void main() {
    int t = int(gl_LocalInvocationIndex);
    int ta = t >> 4, tq = t & 15;                    // entries (2 ta, 2 ta + 1) x (4 tq .. 4 tq + 3)
    int q0 = int(gl_WorkGroupID.x) * 64;
    int ch = int(gl_WorkGroupID.y);
    int r0 = u_j0 + ch * u_rows, r1 = min(u_m, r0 + u_rows);
    real4 acc0 = real4(0.0), acc1 = real4(0.0);
    for (int i0 = r0; i0 < r1; i0 += RS) {
        for (int e = t; e < RS * NBQ; e += 256) {
            int r = e / NBQ, a = e % NBQ, i = i0 + r;
            Vs[r][a] = (i < r1 && a < u_kb) ? v_at(i, a, u_j0, u_ld) : real(0.0);
        }
        int r = t >> 4, i = i0 + r, q = q0 + 4 * tq;
        Cs[r][tq] = i < r1 ? real4(c_at(i, q), c_at(i, q + 1), c_at(i, q + 2), c_at(i, q + 3)) : real4(0.0);
        barrier();
        for (int s = 0; s < RS; ++s) {
            real4 c = Cs[s][tq];
            acc0 += Vs[s][2 * ta] * c;
            acc1 += Vs[s][2 * ta + 1] * c;
        }
        barrier();
    }
    int a = 2 * ta, base = ch * NBQ;
    for (int l = 0; l < 4; ++l) {
        int q = q0 + 4 * tq + l;
        if (q >= u_nc) break;
        if (a < u_kb) wp[(base + a) * u_nc + q] = acc0[l];
        if (a + 1 < u_kb) wp[(base + a + 1) * u_nc + q] = acc1[l];
    }
}
