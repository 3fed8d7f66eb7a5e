#version 430
// Blocked QR, Apply (1 of 3, first part): W1 = V^T C, split over row chunks.
// Fragment (x, c * NB/4 + lq) owns W1 rows 4 lq .. 4 lq + 3 and the 4 columns of
// C's texel x, summed over the rows of chunk c of its front: one V texel and one C
// texel per row, 16 multiply-adds.  Partial sums go to W1PART(x, c * NB + l).
#include "bqr_common.glsl"
uniform sampler2D V;                                  // the factored matrices
uniform sampler2D C;                                  // read only here: through the texture units
layout(rgba32f, binding = 1) uniform image2D W1PART;
uniform int u_kb;

void main() {
    int bw = fr_bw(), m = fr_m(), chunk = fr_chunk(), vq0 = fr_ox() + (u_kb >> 2);
    int x = int(gl_FragCoord.x);
    int y = int(gl_FragCoord.y);
    int c = y / NBQ, lq = y % NBQ;
    vec4 acc[4] = vec4[4](vec4(0.0), vec4(0.0), vec4(0.0), vec4(0.0));
    int i1 = min(m, (c + 1) * chunk);
    if (4 * lq < bw) {
        int i = max(u_kb + 4 * lq, c * chunk);
        for (; i + 3 < i1; i += 4) {                  // four rows' loads in flight a trip
            vec4 v[4], xx[4];
            for (int r = 0; r < 4; ++r) {
                v[r] = v_texel(V, vq0, i + r, lq, u_kb, bw);
                xx[r] = texelFetch(C, ivec2(x, i + r), 0);
            }
            for (int r = 0; r < 4; ++r) {
                acc[0] += v[r].x * xx[r]; acc[1] += v[r].y * xx[r]; acc[2] += v[r].z * xx[r]; acc[3] += v[r].w * xx[r];
            }
        }
        for (; i < i1; ++i) {
            vec4 v = v_texel(V, vq0, i, lq, u_kb, bw);
            vec4 xx = texelFetch(C, ivec2(x, i), 0);
            acc[0] += v.x * xx; acc[1] += v.y * xx; acc[2] += v.z * xx; acc[3] += v.w * xx;
        }
    }
    for (int r = 0; r < 4; ++r)
        imageStore(W1PART, ivec2(x, c * NB + 4 * lq + r), acc[r]);
}
