#version 430
// Blocked QR, Factorize, column k (draw 2 of 2): row k - kb of YZ, one fragment per
// panel column jl.  Each fragment finishes the reduction of its own column and of
// column k (summing the chunks of PART: no separate sum pass) and recomputes the
// reflector's scalars (LAPACK slarfg, as qr_householder.frag) -- cheaper than another
// dependent pass -- and its z(jl) = -tau v_k^T A'(k:m, kb+jl): w for the columns right
// of k; for the reflectors l left of k the column of T, -tau v_k^T v_l, whose v_l is
// s_l times the panel's unscaled column (s_l from YZ's row l).
// YZ(jl, k - kb) = (z, beta, tau, s), stored through an image (rows l < k are read).
// PART comes in through the texture units (bqr_dots_reflect stored it; a barrier is between).
#include "bqr_common.glsl"
uniform sampler2D P;                                  // the panel after reflection k-1 (unscaled columns)
uniform sampler2D PART;                               // bqr_dots_reflect's partial sums: chunk c in row c
layout(rgba32f, binding = 0) uniform image2D YZ;
uniform int u_k;
uniform int u_kb;
uniform int u_m;
uniform int u_chunk;

void main() {
    int jl = int(gl_FragCoord.x), kl = u_k - u_kb;
    float alpha = elem4(texelFetch(P, ivec2(kl >> 2, u_k), 0), kl);
    // both reductions in one loop of independent fetches, four chunks a trip: on the
    // H100 a chain of dependent loads, not the arithmetic, is what a draw like this waits on
    vec4 sk = vec4(0.0), sj = vec4(0.0);
    int c = (u_k + 1) / u_chunk, c1 = (u_m + u_chunk - 1) / u_chunk;
    for (; c + 3 < c1; c += 4) {
        sk += vec4(elem4(texelFetch(PART, ivec2(kl >> 2, c), 0), kl), elem4(texelFetch(PART, ivec2(kl >> 2, c + 1), 0), kl),
                   elem4(texelFetch(PART, ivec2(kl >> 2, c + 2), 0), kl), elem4(texelFetch(PART, ivec2(kl >> 2, c + 3), 0), kl));
        sj += vec4(elem4(texelFetch(PART, ivec2(jl >> 2, c), 0), jl), elem4(texelFetch(PART, ivec2(jl >> 2, c + 1), 0), jl),
                   elem4(texelFetch(PART, ivec2(jl >> 2, c + 2), 0), jl), elem4(texelFetch(PART, ivec2(jl >> 2, c + 3), 0), jl));
    }
    for (; c < c1; ++c) {
        sk.x += elem4(texelFetch(PART, ivec2(kl >> 2, c), 0), kl);
        sj.x += elem4(texelFetch(PART, ivec2(jl >> 2, c), 0), jl);
    }
    float sigma = (sk.x + sk.y) + (sk.z + sk.w);
    float dj = (sj.x + sj.y) + (sj.z + sj.w);
    vec4 h;
    if (sigma == 0.0) {
        h = vec4(0.0, alpha, 0.0, 0.0);               // nothing to annihilate: H = I (tau = 0), R(k, k) = alpha
    } else {
        float beta = (alpha >= 0.0 ? -1.0 : 1.0) * sqrt(alpha * alpha + sigma);
        float tau = (beta - alpha) / beta, s = 1.0 / (alpha - beta);
        float akj = elem4(texelFetch(P, ivec2(jl >> 2, u_k), 0), jl);
        float z = -tau * (akj + s * dj);
        if (jl < kl) z *= imageLoad(YZ, ivec2(0, jl)).w;   // v_l = s_l U(:, l)
        h = vec4(z, beta, tau, s);
    }
    imageStore(YZ, ivec2(jl, kl), h);
}
