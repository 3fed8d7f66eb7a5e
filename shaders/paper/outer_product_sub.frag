#version 330
// Kernel 5 (2008 paper, section 4.2): outer-product subtraction,
// L(i, j) = L(i, j) - L(i, k) * L(j, k) for a fragment at (x, y) = (j, i).
// The neighbour L(i, k) is fetched at T0 = (k+.5, i); the pivot L(j, k) at T1
// swizzled: T1 = (j, k+.5), T1.yx = (k+.5, j)  (Fig. 5(b); Figs. 6, 7 packed).
uniform sampler2D L;
noperspective in vec3 t0;
noperspective in vec3 t1;
out float result;

void main() {
    result = texelFetch(L, ivec2(gl_FragCoord.xy), 0).r
           - texelFetch(L, ivec2(t0.xy), 0).r * texelFetch(L, ivec2(t1.yx), 0).r;
}
