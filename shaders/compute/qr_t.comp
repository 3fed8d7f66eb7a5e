#version 430
// method="compute": the compact WY factor of one panel (Schreiber and Van Loan; the
// T of Yeralan et al., 2015, section 3.2): H_0 ... H_{kb-1} = I - V T V^T with T upper
// triangular, T(a, a) = tau_a, T(0:b, b) = -tau_b T(0:b, 0:b) V(:, 0:b)^T v_b.
// One workgroup: G = V^T V from qr_vtc.comp's partials (GRAM), then T column by column.
// FP64: the same in double.
layout(local_size_x = 256) in;
#include "real.glsl"
layout(std430, binding = 0) readonly buffer GBuf { real gp[]; };     // qr_vtc.comp's GRAM partials
layout(std430, binding = 1) readonly buffer TauBuf { real tau[]; };
layout(std430, binding = 2) writeonly buffer TBuf { real tt[]; };
#ifndef NBQ
#define NBQ 32
#endif
uniform int u_j0;
uniform int u_kb;
uniform int u_nch;           // chunks of partials
uniform int u_toff;          // where this panel's NBQ x NBQ T goes in TBuf
shared real G[NBQ][NBQ + 1];
shared real Ts[NBQ][NBQ + 1];

void main() {
    int t = int(gl_LocalInvocationIndex);
    // G(a, b) = V(:, a)^T V(:, b), a < b: the chunks' partials added in order
    for (int s = 0; s < 4; ++s) {
        int e = t + 256 * s, a = e / NBQ, b = e % NBQ;
        real g = real(0.0);
        if (a < b && b < u_kb)
            for (int k = 0; k < u_nch; ++k) g += gp[(k * NBQ + a) * u_kb + b];
        G[a][b] = g;
    }
    for (int e = t; e < NBQ * NBQ; e += 256) Ts[e / NBQ][e % NBQ] = real(0.0);
    barrier();
    for (int b = 0; b < u_kb; ++b) {
        real tb = tau[u_j0 + b];
        real s = real(0.0);
        if (t < b)
            for (int c = t; c < b; ++c) s += Ts[t][c] * G[c][b];
        barrier();
        if (t < b) Ts[t][b] = -tb * s;
        if (t == b) Ts[b][b] = tb;
        barrier();
    }
    for (int e = t; e < NBQ * NBQ; e += 256) tt[u_toff + e] = Ts[e / NBQ][e % NBQ];
}
