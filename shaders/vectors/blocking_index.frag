#version 330
// Line-search helper for Mehrotra's step heuristic: the row index of every
// element whose step ratio equals the step (u_alpha), a huge value elsewhere; a
// min reduction then names the blocking element.
uniform sampler2D ratio;
uniform float u_alpha;
out float result;

void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);
    result = (texelFetch(ratio, at, 0).r <= u_alpha) ? float(at.y) : 1e30;
}
