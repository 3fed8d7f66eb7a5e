#version 430
// Blocked QR, Factorize, column k = kb + kl (draw 2 of 2): row kl of every front's
// YZ slot, one fragment per panel column jl.  Each fragment finishes the reduction of
// its own column and of column k (summing the chunks of PART: no separate sum pass)
// and recomputes the reflector's scalars (LAPACK slarfg, as qr_householder.frag) --
// cheaper than another dependent pass -- and its z(jl) = -tau v_k^T A'(k:m, kb+jl):
// w for the columns right of k; for the reflectors l left of k the column of T,
// -tau v_k^T v_l, whose v_l is s_l times the panel's unscaled column (s_l from YZ's row l).
// YZ(f NB + jl, kl) = (z, beta, tau, s), stored through an image (rows l < kl are read);
// PART comes in through the texture units (bqr_dots_reflect stored it before a barrier).
#include "bqr_common.glsl"
uniform sampler2D P;                                  // the panels after reflection k-1 (unscaled columns)
uniform sampler2D PART;                               // bqr_dots_reflect's partial sums: chunk c in row c
layout(rgba32f, binding = 0) uniform image2D YZ;
uniform int u_kb;
uniform int u_kl;

void main() {
    int f = fr_f(), m = fr_m(), chunk = fr_chunk();
    int slot = f * NBQ;
    int jl = int(gl_FragCoord.x) - f * NB, kl = u_kl, k = u_kb + kl;
    float alpha = elem4(texelFetch(P, ivec2(slot + (kl >> 2), k), 0), kl);
    // both reductions in one loop of independent fetches, four chunks a trip: on the
    // H100 a chain of dependent loads, not the arithmetic, is what a draw like this waits on
    vec4 sk = vec4(0.0), sj = vec4(0.0);
    ivec2 ck = ivec2(slot + (kl >> 2), 0), cj = ivec2(slot + (jl >> 2), 0);
    int c = (k + 1) / chunk, c1 = (m + chunk - 1) / chunk;
    for (; c + 3 < c1; c += 4) {
        sk += vec4(elem4(texelFetch(PART, ck + ivec2(0, c), 0), kl), elem4(texelFetch(PART, ck + ivec2(0, c + 1), 0), kl),
                   elem4(texelFetch(PART, ck + ivec2(0, c + 2), 0), kl), elem4(texelFetch(PART, ck + ivec2(0, c + 3), 0), kl));
        sj += vec4(elem4(texelFetch(PART, cj + ivec2(0, c), 0), jl), elem4(texelFetch(PART, cj + ivec2(0, c + 1), 0), jl),
                   elem4(texelFetch(PART, cj + ivec2(0, c + 2), 0), jl), elem4(texelFetch(PART, cj + ivec2(0, c + 3), 0), jl));
    }
    for (; c < c1; ++c) {
        sk.x += elem4(texelFetch(PART, ck + ivec2(0, c), 0), kl);
        sj.x += elem4(texelFetch(PART, cj + ivec2(0, c), 0), jl);
    }
    float sigma = (sk.x + sk.y) + (sk.z + sk.w);
    float dj = (sj.x + sj.y) + (sj.z + sj.w);
    vec4 h;
    // sigma under 2^-80 counts as zero (H = I): the matrix comes scaled to max |A| in [0.5, 1),
    // so the sub-column left is under 2^-40, far below float32's backward error -- while sums
    // of squares that small lose the terms the GPU flushes to zero, and a sigma that does not
    // match v makes a reflector that is not orthogonal
    if (sigma < 8.2718061e-25) {
        h = vec4(0.0, alpha, 0.0, 0.0);               // nothing to annihilate: H = I (tau = 0), R(k, k) = alpha
    } else {
        float beta = (alpha >= 0.0 ? -1.0 : 1.0) * sqrt(alpha * alpha + sigma);
        float tau = (beta - alpha) / beta, s = 1.0 / (alpha - beta);
        float akj = elem4(texelFetch(P, ivec2(slot + (jl >> 2), k), 0), jl);
        float z = -tau * (akj + s * dj);
        if (jl < kl) z *= imageLoad(YZ, ivec2(f * NB, jl)).w;   // v_l = s_l U(:, l)
        h = vec4(z, beta, tau, s);
    }
    imageStore(YZ, ivec2(f * NB + jl, kl), h);
}
