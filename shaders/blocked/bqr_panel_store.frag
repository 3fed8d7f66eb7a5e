#version 430
// Blocked QR, end of a panel: every front's final panel columns into A, in geqrf's
// layout.  Column j's rows above its diagonal are R (the panel holds every
// reflection left of j applied to them), its diagonal is beta_j, and below it the
// reflector v_j = s_j U(:, j) (U: the panel's unscaled column).  Rows from kb down;
// columns of the texel past the panel pass through unchanged.
#include "bqr_common.glsl"
// The panels ping-pong: column kl's step writes P0 for even kl, P1 for odd.  Fronts
// with narrower panels stop earlier, so each front's last state is in the texture of
// its own last column, bw - 1.
uniform sampler2D P0;
uniform sampler2D P1;
uniform sampler2D YZ;
layout(rgba32f, binding = 0) uniform image2D A;
uniform int u_kb;

void main() {
    int f = fr_f(), bw = fr_bw();
    int x = int(gl_FragCoord.x), i = int(gl_FragCoord.y);
    int q = x - fr_ox() - (u_kb >> 2);
    ivec2 at = ivec2(f * NBQ + q, i);
    vec4 a = ((bw - 1) % 2 == 0) ? texelFetch(P0, at, 0) : texelFetch(P1, at, 0);
    for (int e = 0; e < 4; ++e) {
        int jl = 4 * q + e, j = u_kb + jl;
        if (jl >= bw || i < j) continue;
        vec4 h = texelFetch(YZ, ivec2(f * NB, jl), 0);
        a[e] = (i == j) ? h.y : h.w * a[e];
    }
    imageStore(A, ivec2(x, i), a);
}
