#version 430
// Blocked QR, Factorize, column k = kb + kl of every front's panel (draw 1 of 2).
// The panel ping-pongs between two textures S -> T (each front in its slot of NB/4
// texels), and its columns stay unscaled (U) until the panel ends
// (bqr_panel_store.frag), so this one pass does what took three: each fragment
// owns a chunk of rows of one panel texel (4 columns) and
//   * applies the previous reflection: A'(i, j) = S(i, j) + v_{k-1}(i) z_{k-1}(j)
//     for the columns j > k-1 (v(k-1) = 1, v(i) = s U(i, k-1) below it, 0 above),
//     and stores A' into T;
//   * sums its chunk's share of the dots for column k, over rows i > k:
//     A'(i, k) A'(i, j) -- sigma (j = k), w (j > k), and for the reflectors left of
//     k their unscaled v_j^T v_k half (Yeralan et al.'s merged z = -tau v^T A(k:m, :),
//     section 3.2.1); A'(i, k) is column k reflected on the fly from S.
// PART(slot texel, c) gets the 4 columns' partial sums of chunk c.
#include "bqr_common.glsl"
uniform sampler2D S;                                  // the panel before reflection k-1 (A itself at k = kb)
uniform sampler2D YZ;                                 // YZ(f NB + jl, kl-1) = (z, beta, tau, s) of reflection k-1
layout(rgba32f, binding = 0) uniform image2D T;       // the panel after it
layout(rgba32f, binding = 1) uniform image2D PART;
uniform int u_kb;
uniform int u_kl;
uniform int u_first;                                  // 1: kl = 0, no reflection to apply; S is A

void main() {
    int f = fr_f(), bw = fr_bw(), m = fr_m(), chunk = fr_chunk();
    int slot = f * NBQ;
    int q = int(gl_FragCoord.x) - slot, c = int(gl_FragCoord.y);
    int sq0 = (u_first == 1) ? fr_ox() + (u_kb >> 2) : slot;     // where S holds the panel
    int kl = u_kl, k = u_kb + kl, p = k - 1;
    vec4 z = vec4(0.0);
    float sp = 0.0, zk = 0.0;
    if (u_first == 0) {
        for (int e = 0; e < 4; ++e) {
            int jl = 4 * q + e;
            if (jl >= kl && jl < bw) z[e] = texelFetch(YZ, ivec2(f * NB + jl, kl - 1), 0).x;
        }
        vec4 h = texelFetch(YZ, ivec2(f * NB + kl, kl - 1), 0);
        zk = h.x;                                     // z_{k-1}(k)
        sp = h.w;                                     // s of reflection k-1 (the same in its whole row)
    }
    vec4 acc = vec4(0.0);
    int i1 = min(m, (c + 1) * chunk);
    int i = max(u_kb, c * chunk);
    // four rows a trip, their loads issued before any is used: the loop is a chain of
    // load latencies otherwise (the stores keep the compiler from overlapping trips)
    for (; i + 3 < i1; i += 4) {
        vec4 a[4];
        float u[4], w[4];
        for (int r = 0; r < 4; ++r) {
            a[r] = texelFetch(S, ivec2(sq0 + q, i + r), 0);
            u[r] = (u_first == 0) ? elem4(texelFetch(S, ivec2(sq0 + ((kl - 1) >> 2), i + r), 0), kl - 1) : 0.0;
            w[r] = elem4(texelFetch(S, ivec2(sq0 + (kl >> 2), i + r), 0), kl);
        }
        for (int r = 0; r < 4; ++r) {
            int ii = i + r;
            float v = (u_first == 0) ? ((ii == p) ? 1.0 : ((ii > p) ? sp * u[r] : 0.0)) : 0.0;
            vec4 b = a[r] + v * z;
            imageStore(T, ivec2(slot + q, ii), b);
            if (ii > k) acc += (w[r] + v * zk) * b;
        }
    }
    for (; i < i1; ++i) {
        float v = 0.0;
        if (u_first == 0)
            v = (i == p) ? 1.0 : ((i > p) ? sp * elem4(texelFetch(S, ivec2(sq0 + ((kl - 1) >> 2), i), 0), kl - 1) : 0.0);
        vec4 a = texelFetch(S, ivec2(sq0 + q, i), 0) + v * z;
        imageStore(T, ivec2(slot + q, i), a);
        if (i > k) acc += (elem4(texelFetch(S, ivec2(sq0 + (kl >> 2), i), 0), kl) + v * zk) * a;
    }
    imageStore(PART, ivec2(slot + q, c), acc);
}
