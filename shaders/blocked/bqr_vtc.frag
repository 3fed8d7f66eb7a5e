#version 430
// Blocked QR, Apply (1 of 3, first half): W1 = V^T C, split over row chunks.
// Fragment (q, c * NB/4 + lq) owns W1 rows 4 lq .. 4 lq + 3 and the 4 columns of
// texel q, summed over the rows of chunk c: one V texel and one C texel per row,
// 16 multiply-adds.  Partial sums go to W1PART(q, c * NB + l).
#ifndef NB
#define NB 32
#endif
#include "bqr_common.glsl"
uniform sampler2D V;                                  // the factored matrix
uniform sampler2D C;                                  // read only here: through the texture units
layout(rgba32f, binding = 1) uniform image2D W1PART;
uniform int u_kb;
uniform int u_bw;
uniform int u_m;
uniform int u_chunk;
uniform int u_q0;                                     // first texel column of C to update

void main() {
    int q = u_q0 + int(gl_FragCoord.x);
    int y = int(gl_FragCoord.y);
    int c = y / (NB / 4), lq = y % (NB / 4);
    vec4 acc[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
    int i1 = min(u_m, (c + 1) * u_chunk);
    if (4 * lq < u_bw) {
        int i = max(u_kb + 4 * lq, c * u_chunk);
        for (; i + 3 < i1; i += 4) {                  // four rows' loads in flight a trip
            vec4 v[4], x[4];
            for (int r = 0; r < 4; ++r) {
                v[r] = v_texel(V, i + r, lq, u_kb, u_bw);
                x[r] = texelFetch(C, ivec2(q, i + r), 0);
            }
            for (int r = 0; r < 4; ++r) {
                acc[0] += v[r].x * x[r]; acc[1] += v[r].y * x[r]; acc[2] += v[r].z * x[r]; acc[3] += v[r].w * x[r];
            }
        }
        for (; i < i1; ++i) {
            vec4 v = v_texel(V, i, lq, u_kb, u_bw);
            vec4 x = texelFetch(C, ivec2(q, i), 0);
            acc[0] += v.x * x; acc[1] += v.y * x; acc[2] += v.z * x; acc[3] += v.w * x;
        }
    }
    for (int r = 0; r < 4; ++r)
        imageStore(W1PART, ivec2(q - u_q0, c * NB + 4 * lq + r), acc[r]);
}
