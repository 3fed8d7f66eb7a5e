#version 330
// Outer-product subtraction driven by one index triad (Jung 2006, section 3.2,
// Fig. 5(c)): the vertex carries (pivot-x, neighbour-y, k+.5) in T0 and the two
// fetch addresses are the swizzles T0.zy (neighbour L(i, k)) and T0.zx (pivot
// L(j, k)).  Same arithmetic as Kernel 5, one interpolated coordinate instead of two.
uniform sampler2D L;
noperspective in vec3 t0;
out float result;

void main() {
    result = texelFetch(L, ivec2(gl_FragCoord.xy), 0).r
           - texelFetch(L, ivec2(t0.zy), 0).r * texelFetch(L, ivec2(t0.zx), 0).r;
}
