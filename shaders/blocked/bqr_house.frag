#version 430
// Blocked QR, Factorize, column k (draw 2 of 2): row k - kb of YZ, one fragment per
// panel column jl.  Each fragment finishes the reduction of its own column and of
// column k (summing the chunks of PART: no separate sum pass) and recomputes the
// reflector's scalars (LAPACK slarfg, as qr_householder.frag) -- cheaper than another
// dependent pass -- and its z(jl) = -tau v_k^T A'(k:m, kb+jl): w for the columns right
// of k; for the reflectors l left of k the column of T, -tau v_k^T v_l, whose v_l is
// s_l times the panel's unscaled column (s_l from YZ's row l).
// YZ(jl, k - kb) = (z, beta, tau, s), stored through an image (rows l < k are read).
#include "bqr_common.glsl"
uniform sampler2D P;                                  // the panel after reflection k-1 (unscaled columns)
layout(rgba32f, binding = 0) uniform image2D YZ;
layout(rgba32f, binding = 1) uniform image2D PART;    // bqr_dots_reflect's partial sums: chunk c in row c
uniform int u_k;
uniform int u_kb;
uniform int u_m;
uniform int u_chunk;

float dots(int jl) {
    float s = 0.0;
    for (int c = (u_k + 1) / u_chunk; c < (u_m + u_chunk - 1) / u_chunk; ++c)
        s += elem4(imageLoad(PART, ivec2(jl >> 2, c)), jl);
    return s;
}

void main() {
    int jl = int(gl_FragCoord.x), kl = u_k - u_kb;
    float alpha = elem4(texelFetch(P, ivec2(kl >> 2, u_k), 0), kl);
    float sigma = dots(kl);
    vec4 h;
    if (sigma == 0.0) {
        h = vec4(0.0, alpha, 0.0, 0.0);               // nothing to annihilate: H = I (tau = 0), R(k, k) = alpha
    } else {
        float beta = (alpha >= 0.0 ? -1.0 : 1.0) * sqrt(alpha * alpha + sigma);
        float tau = (beta - alpha) / beta, s = 1.0 / (alpha - beta);
        float akj = elem4(texelFetch(P, ivec2(jl >> 2, u_k), 0), jl);
        float z = -tau * (akj + s * dots(jl));
        if (jl < kl) z *= imageLoad(YZ, ivec2(0, jl)).w;   // v_l = s_l U(:, l)
        h = vec4(z, beta, tau, s);
    }
    imageStore(YZ, ivec2(jl, kl), h);
}
