#version 430
// Blocked QR, Apply (3 of 3): C -= V W2 in place, one fragment per 4 rows x 4
// columns (4 texels of C): per 4 reflectors, 4 V texels and 4 W2 texels give 64
// multiply-adds.  With u_keep, a front's columns left of kb + bw (its panel itself:
// R and V) are kept.
#include "bqr_common.glsl"
uniform sampler2D V;
layout(rgba32f, binding = 0) uniform image2D C;
layout(rgba32f, binding = 2) uniform image2D W2;
uniform int u_kb;
uniform int u_keep;

void main() {
    int bw = fr_bw(), m = fr_m(), ox = fr_ox(), vq0 = ox + (u_kb >> 2);
    int x = int(gl_FragCoord.x);
    int i0 = u_kb + 4 * int(gl_FragCoord.y);
    vec4 acc[4];
    for (int r = 0; r < 4; ++r) acc[r] = (i0 + r < m) ? imageLoad(C, ivec2(x, i0 + r)) : vec4(0.0);
    for (int lq = 0; lq < (bw + 3) / 4; ++lq) {
        vec4 w[4];
        for (int c = 0; c < 4; ++c) w[c] = imageLoad(W2, ivec2(x, 4 * lq + c));
        for (int r = 0; r < 4; ++r) {
            vec4 v = v_texel(V, vq0, i0 + r, lq, u_kb, bw);
            acc[r] -= v.x * w[0] + v.y * w[1] + v.z * w[2] + v.w * w[3];
        }
    }
    for (int r = 0; r < 4; ++r) {
        if (i0 + r >= m) break;
        if (u_keep == 1) {
            vec4 old = imageLoad(C, ivec2(x, i0 + r));
            for (int c = 0; c < 4; ++c)
                if (4 * (x - ox) + c < u_kb + bw) acc[r][c] = old[c];
        }
        imageStore(C, ivec2(x, i0 + r), acc[r]);
    }
}
