#version 430
// method="compute", sparse QR: many small fronts factored in one dispatch, one
// workgroup each -- the leaves of a tree like grid3d_40's (thousands of fronts of a few
// dozen rows), where a dispatch per panel step would cost more than the arithmetic.
// A front (m x n, row stride n, at float `off` of the arena) is loaded into shared
// memory and factored column by column as LAPACK's geqr2 (the same Householder vectors
// as qr_panel.comp: beta, tau, v scaled below the diagonal, sums of squares under
// 2^-80 count as zero), then stored back: R on and above the diagonal, v below it.
layout(local_size_x = 256) in;
#define T 256
#ifndef SMALL
#define SMALL 6144          // floats of shared memory a front may take (the host sets it)
#endif
layout(std430, binding = 0) buffer FBuf { float fa[]; };
layout(std430, binding = 1) readonly buffer TabBuf { int tab[]; };   // per front: off, m, n
shared float S[SMALL];
shared float red[T];
shared float s_w[T];
shared float s_scale;
shared float s_tau;

void main() {
    int t = int(gl_LocalInvocationIndex);
    int g = int(gl_WorkGroupID.x);
    int off = tab[3 * g], m = tab[3 * g + 1], n = tab[3 * g + 2];
    for (int e = t; e < m * n; e += T) S[e] = fa[off + e];
    barrier();
    int k = min(m, n);
    for (int c = 0; c < k; ++c) {
        float part = 0.0;
        for (int i = c + 1 + t; i < m; i += T) { float x = S[i * n + c]; part += x * x; }
        red[t] = part;
        barrier();
        for (int s = T / 2; s > 0; s >>= 1) {
            if (t < s) red[t] += red[t + s];
            barrier();
        }
        if (t == 0) {
            float sigma = red[0], alpha = S[c * n + c];
            if (sigma < 8.2718061e-25) {
                s_tau = 0.0;
                s_scale = 0.0;
            } else {
                float beta = -sign(alpha == 0.0 ? 1.0 : alpha) * sqrt(alpha * alpha + sigma);
                s_tau = (beta - alpha) / beta;
                s_scale = 1.0 / (alpha - beta);
                S[c * n + c] = beta;
            }
        }
        barrier();
        float scale = s_scale, tau = s_tau;
        for (int i = c + 1 + t; i < m; i += T) S[i * n + c] *= scale;
        barrier();
        // w_j = tau (A(c, j) + v_below^T A(below, j)) for the columns right of c
        for (int j = c + 1 + t; j < n; j += T) {
            float s = S[c * n + j];
            for (int i = c + 1; i < m; ++i) s += S[i * n + c] * S[i * n + j];
            s_w[j - c - 1] = tau * s;
        }
        barrier();
        int w = n - c - 1;
        for (int e = t; e < (m - c) * w; e += T) {
            int i = c + e / w, j = c + 1 + e % w;
            float v = i == c ? 1.0 : S[i * n + c];
            S[i * n + j] -= v * s_w[j - c - 1];
        }
        barrier();
    }
    for (int e = t; e < m * n; e += T) fa[off + e] = S[e];
}
