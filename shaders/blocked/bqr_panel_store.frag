#version 430
// Blocked QR, end of a panel: the panel's final columns into A, in geqrf's layout.
// Column j's rows above its diagonal are R (the panel holds every reflection left
// of j applied to them), its diagonal is beta_j, and below it the reflector
// v_j = s_j U(:, j) (U: the panel's unscaled column).  Rows from kb down; columns
// of the texel past the panel pass through unchanged.
#include "bqr_common.glsl"
uniform sampler2D P;                                  // the panel after its last reflection's predecessor
uniform sampler2D YZ;
layout(rgba32f, binding = 0) uniform image2D A;
uniform int u_kb;
uniform int u_bw;

void main() {
    int q = int(gl_FragCoord.x), i = int(gl_FragCoord.y);
    vec4 a = texelFetch(P, ivec2(q, i), 0);
    for (int e = 0; e < 4; ++e) {
        int jl = 4 * q + e, j = u_kb + jl;
        if (jl >= u_bw || i < j) continue;
        vec4 h = texelFetch(YZ, ivec2(0, jl), 0);
        a[e] = (i == j) ? h.y : h.w * a[e];
    }
    imageStore(A, ivec2((u_kb >> 2) + q, i), a);
}
