#version 330
// Line-search kernel (Jung 2006, Algorithm 3): for x + alpha dx >= 0, each element
// gives the step at which it would hit zero, -x_i / dx_i where dx_i < 0, and a
// huge value (no limit) elsewhere.  A min reduction then gives alpha_max.
uniform sampler2D x;
uniform sampler2D dx;
out float result;

void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);
    float d = texelFetch(dx, at, 0).r;
    result = (d < 0.0) ? -texelFetch(x, at, 0).r / d : 1e30;
}
