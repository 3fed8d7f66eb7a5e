#version 330
// Kernel 3 with a pivot floor, for interior-point solves only (not the paper's
// Cholesky): a pivot below u_floor -- the normal equations turning singular in
// float32 near the optimum -- becomes a huge number, so that its column
// normalizes to ~0 and the direction is dropped (the tiny-pivot rule of
// interior-point codes, Wright 1997, ch. 11) -- or, with u_regularize = 1, the
// floor itself (a regularized pivot, as blocked_panel.frag does).  The faithful
// path uses sqrt.frag.
uniform sampler2D L;
uniform float u_floor;
uniform int u_regularize;
out float result;

void main() {
    float v = texelFetch(L, ivec2(gl_FragCoord.xy), 0).r;
    result = (v > u_floor) ? sqrt(v) : (u_regularize == 1 ? sqrt(u_floor) : 1e30);
}
