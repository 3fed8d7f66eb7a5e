#version 330
// Interior-point helper: the diagonal of D^2 = X S^-1 (Jung 2006, (4.12)), kept in
// [u_lo, u_hi] so that float32 never sees inf (an s that underflowed) or 0.
uniform sampler2D x;
uniform sampler2D s;
uniform float u_lo;
uniform float u_hi;
out float result;

void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);
    result = clamp(texelFetch(x, at, 0).r / texelFetch(s, at, 0).r, u_lo, u_hi);
}
