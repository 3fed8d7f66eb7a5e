#version 330
// Level-1 kernel (Jung 2006, section 4.2): saxpy, z = alpha * x + y, one fragment
// per element of an n x 1 column texture.  With u_has_y = 0 it scales: z = alpha * x.
uniform sampler2D x;
uniform sampler2D y;
uniform float u_alpha;
uniform int u_has_y;
out float result;

void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);
    float v = u_alpha * texelFetch(x, at, 0).r;
    result = (u_has_y != 0) ? v + texelFetch(y, at, 0).r : v;
}
