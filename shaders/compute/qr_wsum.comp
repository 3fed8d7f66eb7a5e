#version 430
// method="compute": the Apply's middle step, W2 = op(T) W with W the sum of
// qr_vtc.comp's per-chunk partials (added in chunk order), op(T) = T^T for Q^T C and
// T for Q C: one workgroup per NBQ columns of W.
// FP64: the same in double.
layout(local_size_x = 256) in;
#include "real.glsl"
layout(std430, binding = 0) readonly buffer WpBuf { real wp[]; };
layout(std430, binding = 1) readonly buffer TBuf { real tt[]; };
layout(std430, binding = 2) writeonly buffer W2Buf { real w2[]; };
#ifndef NBQ
#define NBQ 32
#endif
uniform int u_kb;
uniform int u_nc;
uniform int u_nch;           // chunks of partials
uniform int u_toff;
uniform int u_trans;
shared real Ws[NBQ][NBQ + 1];
shared real Ts[NBQ][NBQ + 1];

void main() {
    int t = int(gl_LocalInvocationIndex);
    int q0 = int(gl_WorkGroupID.x) * NBQ;
    for (int e = t; e < NBQ * NBQ; e += 256) {
        int b = e / NBQ, q = e % NBQ;
        real s = real(0.0);
        if (b < u_kb && q0 + q < u_nc)
            for (int k = 0; k < u_nch; ++k) s += wp[(k * NBQ + b) * u_nc + q0 + q];
        Ws[b][q] = s;
        // here b is op(T)'s row, q its column
        Ts[b][q] = (b < u_kb && q < u_kb) ? (u_trans == 1 ? tt[u_toff + q * NBQ + b] : tt[u_toff + b * NBQ + q])
                                          : real(0.0);
    }
    barrier();
    for (int e = t; e < NBQ * NBQ; e += 256) {
        int a = e / NBQ, q = e % NBQ;
        if (a >= u_kb || q0 + q >= u_nc) continue;
        real s = real(0.0);
        for (int b = 0; b < u_kb; ++b) s += Ts[a][b] * Ws[b][q];
        w2[a * u_nc + q0 + q] = s;
    }
}
