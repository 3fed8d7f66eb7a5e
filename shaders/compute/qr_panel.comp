#version 430
// method="compute": Householder QR of one panel of kb <= NBQ columns (one workgroup),
// column by column as LAPACK's geqr2: the column's norm below the diagonal (a
// reduction in shared memory), beta, tau and v (dlarfg), then the reflection of the
// panel's later columns (their dots with v reduced at once).  R stays on and above
// the diagonal, v below it, tau in TAU.  Each thread owns the rows j0 + t + k T.
// FP64: the same in double (64 threads: the reductions' shared memory).
#include "real.glsl"
#ifdef FP64
#define T 64
#else
#define T 128
#endif
layout(local_size_x = T) in;
layout(std430, binding = 0) buffer ABuf { real qa[]; };
layout(std430, binding = 1) buffer TauBuf { real tau[]; };
#include "qr_common.glsl"
uniform int u_m;
uniform int u_ld;
uniform int u_j0;
uniform int u_kb;
shared real red[NBQ][T];
shared real s_w[NBQ];
shared real s_scale;
shared real s_tau;

void main() {
    int t = int(gl_LocalInvocationIndex);
    for (int jj = 0; jj < u_kb; ++jj) {
        int c = u_j0 + jj;            // the column, and its pivot row
        real part = real(0.0);
        for (int i = u_j0 + t; i < u_m; i += T)
            if (i > c) { real x = qa[i * u_ld + c]; part += x * x; }
        red[0][t] = part;
        barrier();
        for (int s = T / 2; s > 0; s >>= 1) {
            if (t < s) red[0][t] += red[0][t + s];
            barrier();
        }
        if (t == 0) {
            real beta, tj, scale;
            householder(qa[c * u_ld + c], red[0][0], beta, tj, scale);
            s_tau = tj;
            s_scale = scale;
            qa[c * u_ld + c] = beta;
            tau[c] = tj;
        }
        memoryBarrierBuffer();
        barrier();
        real scale = s_scale, tj = s_tau;
        for (int i = u_j0 + t; i < u_m; i += T)
            if (i > c) qa[i * u_ld + c] *= scale;
        // w_q = v^T A(:, c + 1 + q) for the panel's later columns, then A -= tau v w^T
        int nq = u_kb - jj - 1;
        PRIV acc[NBQ];
        for (int q = 0; q < NBQ; ++q) acc[q] = TO_PRIV(real(0.0));
        for (int i = u_j0 + t; i < u_m; i += T) {
            if (i < c) continue;
            real v = (i == c) ? real(1.0) : qa[i * u_ld + c];
            for (int q = 0; q < NBQ; ++q)
                if (q < nq) acc[q] = TO_PRIV(FROM_PRIV(acc[q]) + v * qa[i * u_ld + c + 1 + q]);
        }
        for (int q = 0; q < NBQ; ++q) red[q][t] = FROM_PRIV(acc[q]);
        barrier();
        for (int s = T / 2; s > 0; s >>= 1) {
            if (t < s)
                for (int q = 0; q < NBQ; ++q) red[q][t] += red[q][t + s];
            barrier();
        }
        if (t < nq) s_w[t] = red[t][0] * tj;
        memoryBarrierBuffer();
        barrier();
        for (int i = u_j0 + t; i < u_m; i += T) {
            if (i < c) continue;
            real v = (i == c) ? real(1.0) : qa[i * u_ld + c];
            for (int q = 0; q < NBQ; ++q)
                if (q < nq) qa[i * u_ld + c + 1 + q] -= v * s_w[q];
        }
        memoryBarrierBuffer();
        barrier();
    }
}
