#version 330
// Level-2 kernel: y = S x for a symmetric S of which only the lower triangle is
// stored, full or packed (the LS-SVM kernel matrix that Algorithm 3 + the kernel
// pass leave): fragment i reads S(i, j) for j <= i and S(j, i) above, so the
// upper triangle is never needed.  The conjugate-gradient comparator's product.
#include "lower_texel.glsl"
uniform sampler2D L;
uniform sampler2D x;   // m x 1
out float result;

void main() {
    int i = int(gl_FragCoord.y);
    float acc = 0.0;
    for (int j = 0; j < u_m; ++j)
        acc += texelFetch(L, (j <= i) ? lower_texel(i, j) : lower_texel(j, i), 0).r * texelFetch(x, ivec2(0, j), 0).r;
    result = acc;
}
