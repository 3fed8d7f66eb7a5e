#version 430
// method="compute": the Apply's last step, C -= V W2 (W2 = op(T) V^T C from
// qr_wsum.comp): one workgroup per 64 rows x 64 columns of C, 4 x 4 entries per thread
// with V's rows and W2's columns from shared memory.  FP64: the same in double, W2 read
// from the buffer (both blocks in doubles would pass llvmpipe's 32 KiB of shared memory).
// VEC4_STORES (float32, C's row stride and first column multiples of 4): each row's 4 entries
// loaded and stored as one vec4 through C bound again at binding 3 -- the same arithmetic.
layout(local_size_x = 256) in;
#include "real.glsl"
layout(std430, binding = 0) readonly buffer ABuf { real qa[]; };
layout(std430, binding = 1) buffer CBuf { real cc[]; };
layout(std430, binding = 2) readonly buffer WBuf { real w2[]; };
#ifdef VEC4_STORES
layout(std430, binding = 3) buffer CBuf4 { vec4 cc4[]; };
#endif
#include "qr_common.glsl"
uniform int u_m;
uniform int u_ld;
uniform int u_j0;
uniform int u_kb;
uniform int u_ldc;
uniform int u_c0;
uniform int u_nc;
#define RB 64
shared real Vs[RB][NBQ + 1];

real w_at(int a, int q) {
    return (a < u_kb && q < u_nc) ? w2[a * u_nc + q] : real(0.0);
}

#ifdef FP64
#define W_AT(a_, j_) real4(w_at(a_, q0 + 4 * (j_)), w_at(a_, q0 + 4 * (j_) + 1), w_at(a_, q0 + 4 * (j_) + 2), \
                           w_at(a_, q0 + 4 * (j_) + 3))
#else
shared vec4 Ws[NBQ][16];
#define W_AT(a_, j_) Ws[a_][j_]
#endif

void main() {
    int t = int(gl_LocalInvocationIndex);
    int tr = t >> 4, tq = t & 15;                    // rows 4 tr .. 4 tr + 3, columns 4 tq .. 4 tq + 3
    int q0 = int(gl_WorkGroupID.x) * 64;
    int i0 = u_j0 + int(gl_WorkGroupID.y) * RB;
    for (int e = t; e < RB * NBQ; e += 256) {
        int r = e / NBQ, a = e % NBQ, i = i0 + r;
        Vs[r][a] = (i < u_m && a < u_kb) ? v_at(i, a, u_j0, u_ld) : real(0.0);
    }
#ifndef FP64
    for (int e = t; e < NBQ * 16; e += 256) {
        int a = e >> 4, q = q0 + 4 * (e & 15);
        Ws[a][e & 15] = vec4(w_at(a, q), w_at(a, q + 1), w_at(a, q + 2), w_at(a, q + 3));
    }
#endif
    barrier();
    real4 acc0 = real4(0.0), acc1 = real4(0.0), acc2 = real4(0.0), acc3 = real4(0.0);
    for (int a = 0; a < NBQ; ++a) {
        real4 w = W_AT(a, tq);
        acc0 += Vs[4 * tr][a] * w;
        acc1 += Vs[4 * tr + 1][a] * w;
        acc2 += Vs[4 * tr + 2][a] * w;
        acc3 += Vs[4 * tr + 3][a] * w;
    }
    for (int l = 0; l < 4; ++l) {
        int i = i0 + 4 * tr + l;
        if (i >= u_m) break;
        real4 acc = l == 0 ? acc0 : (l == 1 ? acc1 : (l == 2 ? acc2 : acc3));
        int base = i * u_ldc + u_c0 + q0 + 4 * tq;
#ifdef VEC4_STORES
        if (q0 + 4 * tq + 3 < u_nc) {
            cc4[base >> 2] = cc4[base >> 2] - acc;
            continue;
        }
#endif
        for (int x = 0; x < 4; ++x)
            if (q0 + 4 * tq + x < u_nc) cc[base + x] -= acc[x];
    }
}
