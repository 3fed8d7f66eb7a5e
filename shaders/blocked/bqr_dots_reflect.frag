#version 430
// Blocked QR, Factorize, column k of the panel kb .. kb+bw-1 (draw 1 of 2).  The
// panel ping-pongs between two textures S -> T, and its columns stay unscaled (U)
// until the panel ends (bqr_panel_store.frag), so this one pass does what took
// three: each fragment owns a chunk of rows of one panel texel (4 columns) and
//   * applies the previous reflection: A'(i, j) = S(i, j) + v_{k-1}(i) z_{k-1}(j)
//     for the columns j > k-1 (v(k-1) = 1, v(i) = s U(i, k-1) below it, 0 above),
//     and stores A' into T;
//   * sums its chunk's share of the dots for column k, over rows i > k:
//     A'(i, k) A'(i, j) -- sigma (j = k), w (j > k), and for the reflectors left of
//     k their unscaled v_j^T v_k half (seed 004's merged z = -tau v^T A(k:m, :),
//     section 3.2.1); A'(i, k) is column k reflected on the fly from S.
// PART(q, c) gets the 4 columns' partial sums of chunk c.
#include "bqr_common.glsl"
uniform sampler2D S;                                  // the panel before reflection k-1 (A itself at k = kb)
uniform sampler2D YZ;                                 // YZ(jl, k-1-kb) = (z, beta, tau, s) of reflection k-1
layout(rgba32f, binding = 0) uniform image2D T;       // the panel after it
layout(rgba32f, binding = 1) uniform image2D PART;
uniform int u_k;
uniform int u_kb;
uniform int u_bw;
uniform int u_m;
uniform int u_chunk;
uniform int u_sq0;                                    // S's texel of the panel's first column (kb/4 in A, 0 in a panel)
uniform int u_first;                                  // 1: k == kb, no reflection to apply

float s_elem(int i, int jl) { return elem4(texelFetch(S, ivec2(u_sq0 + (jl >> 2), i), 0), jl); }

void main() {
    int q = int(gl_FragCoord.x), c = int(gl_FragCoord.y);
    int kl = u_k - u_kb, p = u_k - 1;
    vec4 z = vec4(0.0);
    float sp = 0.0, zk = 0.0;
    if (u_first == 0) {
        for (int e = 0; e < 4; ++e) {
            int jl = 4 * q + e;
            if (jl >= kl && jl < u_bw) z[e] = texelFetch(YZ, ivec2(jl, kl - 1), 0).x;
        }
        vec4 h = texelFetch(YZ, ivec2(kl, kl - 1), 0);
        zk = h.x;                                     // z_{k-1}(k)
        sp = h.w;                                     // s of reflection k-1 (the same in its whole row)
    }
    vec4 acc = vec4(0.0);
    int i1 = min(u_m, (c + 1) * u_chunk);
    int i = max(u_kb, c * u_chunk);
    // four rows a trip, their loads issued before any is used: the loop is a chain of
    // load latencies otherwise (the stores keep the compiler from overlapping trips)
    for (; i + 3 < i1; i += 4) {
        vec4 a[4];
        float u[4], w[4];
        for (int r = 0; r < 4; ++r) {
            a[r] = texelFetch(S, ivec2(u_sq0 + q, i + r), 0);
            u[r] = (u_first == 0) ? s_elem(i + r, kl - 1) : 0.0;
            w[r] = s_elem(i + r, kl);
        }
        for (int r = 0; r < 4; ++r) {
            int ii = i + r;
            float v = (u_first == 0) ? ((ii == p) ? 1.0 : ((ii > p) ? sp * u[r] : 0.0)) : 0.0;
            vec4 b = a[r] + v * z;
            imageStore(T, ivec2(q, ii), b);
            if (ii > u_k) acc += (w[r] + v * zk) * b;
        }
    }
    for (; i < i1; ++i) {
        float v = 0.0;
        if (u_first == 0) v = (i == p) ? 1.0 : ((i > p) ? sp * s_elem(i, kl - 1) : 0.0);
        vec4 a = texelFetch(S, ivec2(u_sq0 + q, i), 0) + v * z;
        imageStore(T, ivec2(q, i), a);
        if (i > u_k) acc += (s_elem(i, kl) + v * zk) * a;
    }
    imageStore(PART, ivec2(q, c), acc);
}
