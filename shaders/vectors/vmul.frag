#version 330
// Level-1 saxpy variant (Jung 2006, section 4.2): element-wise product z = x .* y
// (also the first half of an inner product; the sum reduction does the rest).
uniform sampler2D x;
uniform sampler2D y;
out float result;

void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);
    result = texelFetch(x, at, 0).r * texelFetch(y, at, 0).r;
}
