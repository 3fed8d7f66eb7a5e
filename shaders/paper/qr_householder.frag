#version 330
// Householder QR, step k, draw 3 of 4: one texel per front.  The reflector
// H = I - tau v v^T with v(k) = 1 that maps A(k:m, k) to (beta, 0, ..., 0), as
// LAPACK's slarfg: beta = -sign(alpha) sqrt(alpha^2 + sigma), tau = (beta - alpha)
// / beta, v(i > k) = A(i, k) / (alpha - beta).  sigma = 0: H = I (tau = 0).
// Writes HH(ox + k) = (beta, tau, 1 / (alpha - beta), 0).
#include "qr_front.glsl"
uniform sampler2D A;
uniform sampler2D G;          // G(ox + k) = sigma = ||A(k+1:m, k)||^2
uniform int u_k;
out vec4 result;

void main() {
    int col = front_ox() + u_k;
    float alpha = texelFetch(A, ivec2(col, u_k), 0).r;
    float sigma = texelFetch(G, ivec2(col, 0), 0).r;
    // sigma under 2^-80 counts as zero (H = I): the matrix comes scaled to max |A| in [0.5, 1),
    // so the sub-column left is under 2^-40, far below float32's backward error -- while sums
    // of squares that small lose the terms the GPU flushes to zero, and a sigma that does not
    // match v makes a reflector that is not orthogonal
    if (sigma < 8.2718061e-25) { result = vec4(alpha, 0.0, 0.0, 0.0); return; }
    float beta = (alpha >= 0.0 ? -1.0 : 1.0) * sqrt(alpha * alpha + sigma);
    result = vec4(beta, (beta - alpha) / beta, 1.0 / (alpha - beta), 0.0);
}
