#version 430
// method="compute": the diagonal-block step of a triangular solve with many
// right-hand sides, held transposed (X^T: one right-hand side per row): each thread
// solves its own right-hand side against L_kk in shared memory -- forward (L x = b),
// or with BACKWARD defined backward (L^T x = y), from the block's last row up.
layout(local_size_x = 64) in;
#ifndef NB
#define NB 64
#endif
layout(std430, binding = 0) readonly buffer LBuf { float l[]; };
layout(std430, binding = 1) buffer XBuf { float x[]; };
uniform int u_loff;     // element (k0, k0) of L
uniform int u_ldl;
uniform int u_xoff;     // element (0, k0) of X^T
uniform int u_ldx;
uniform int u_nb;
uniform int u_nrhs;
shared float Ls[NB][NB + 1];

void main() {
    int t = int(gl_LocalInvocationIndex);
    for (int e = t; e < u_nb * u_nb; e += 64) {
        int i = e / u_nb, j = e % u_nb;
        Ls[i][j] = (j <= i) ? l[u_loff + i * u_ldl + j] : 0.0;
    }
    barrier();
    int r = int(gl_GlobalInvocationID.x);
    if (r >= u_nrhs) return;
    float v[NB];
    for (int j = 0; j < NB; ++j)
        v[j] = j < u_nb ? x[u_xoff + r * u_ldx + j] : 0.0;
#ifdef BACKWARD
    for (int j = NB - 1; j >= 0; --j) {
        if (j >= u_nb) continue;
        float s = v[j];
        for (int p = j + 1; p < NB; ++p)
            if (p < u_nb) s -= Ls[p][j] * v[p];
        v[j] = s / Ls[j][j];
    }
#else
    for (int j = 0; j < NB; ++j) {
        if (j >= u_nb) break;
        float s = v[j];
        for (int p = 0; p < j; ++p)
            s -= Ls[j][p] * v[p];
        v[j] = s / Ls[j][j];
    }
#endif
    for (int j = 0; j < NB; ++j)
        if (j < u_nb) x[u_xoff + r * u_ldx + j] = v[j];
}
