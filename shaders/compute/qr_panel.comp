#version 430
// method="compute": Householder QR of one panel of kb <= NBQ columns (one workgroup),
// column by column as LAPACK's geqr2: the column's norm below the diagonal (a
// reduction in shared memory), beta, tau and v (dlarfg), then the reflection of the
// panel's later columns (their dots with v reduced at once).  R stays on and above
// the diagonal, v below it, tau in TAU.  Each thread owns the rows j0 + t + k T.
layout(local_size_x = 128) in;
#define T 128
layout(std430, binding = 0) buffer ABuf { float qa[]; };
layout(std430, binding = 1) buffer TauBuf { float tau[]; };
#include "qr_common.glsl"
uniform int u_m;
uniform int u_ld;
uniform int u_j0;
uniform int u_kb;
shared float red[NBQ][T];
shared float s_w[NBQ];
shared float s_scale;
shared float s_tau;

void main() {
    int t = int(gl_LocalInvocationIndex);
    for (int jj = 0; jj < u_kb; ++jj) {
        int c = u_j0 + jj;            // the column, and its pivot row
        float part = 0.0;
        for (int i = u_j0 + t; i < u_m; i += T)
            if (i > c) { float x = qa[i * u_ld + c]; part += x * x; }
        red[0][t] = part;
        barrier();
        for (int s = T / 2; s > 0; s >>= 1) {
            if (t < s) red[0][t] += red[0][t + s];
            barrier();
        }
        if (t == 0) {
            float sigma = red[0][0];
            float alpha = qa[c * u_ld + c];
            // sigma under 2^-80 counts as zero (H = I): the matrix comes scaled to max |A| in [0.5, 1),
            // so the sub-column left is under 2^-40, far below float32's backward error -- while sums
            // of squares that small lose the terms the GPU flushes to zero, and a sigma that does not
            // match v makes a reflector that is not orthogonal
            if (sigma < 8.2718061e-25) {                      // nothing below the diagonal: H = I
                s_tau = 0.0;
                s_scale = 0.0;
            } else {
                float beta = -sign(alpha == 0.0 ? 1.0 : alpha) * sqrt(alpha * alpha + sigma);
                s_tau = (beta - alpha) / beta;
                s_scale = 1.0 / (alpha - beta);
                qa[c * u_ld + c] = beta;
            }
            tau[c] = s_tau;
        }
        memoryBarrierBuffer();
        barrier();
        float scale = s_scale, tj = s_tau;
        for (int i = u_j0 + t; i < u_m; i += T)
            if (i > c) qa[i * u_ld + c] *= scale;
        // w_q = v^T A(:, c + 1 + q) for the panel's later columns, then A -= tau v w^T
        int nq = u_kb - jj - 1;
        float acc[NBQ];
        for (int q = 0; q < NBQ; ++q) acc[q] = 0.0;
        for (int i = u_j0 + t; i < u_m; i += T) {
            if (i < c) continue;
            float v = (i == c) ? 1.0 : qa[i * u_ld + c];
            for (int q = 0; q < NBQ; ++q)
                if (q < nq) acc[q] += v * qa[i * u_ld + c + 1 + q];
        }
        for (int q = 0; q < NBQ; ++q) red[q][t] = acc[q];
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
            float v = (i == c) ? 1.0 : qa[i * u_ld + c];
            for (int q = 0; q < NBQ; ++q)
                if (q < nq) qa[i * u_ld + c + 1 + q] -= v * s_w[q];
        }
        memoryBarrierBuffer();
        barrier();
    }
}
