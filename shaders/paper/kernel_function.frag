#version 330
// The LS-SVM kernel matrix's epilogue): K(i, j) = k(x_i, x_j) from the
// Gram matrix G = X X^T that Algorithm 3 assembled, over the lower triangle only --
// drawn with Fig. 2(b)'s triangle (Fig. 4's two in the packed format), whose T0.y
// carries the row i and T1.x the column j in the full format.  G is read at the
// fragment's own texel (same layout); the squared norms n_i = G(i, i) come from row
// 0 of n, n_j from the row T1.y points at (0 in the figures; 1 for an off-diagonal
// tile of a tiled matrix, drawn as a rectangle, whose columns are another band).
#include "kernel_value.glsl"
uniform sampler2D G;
uniform sampler2D n;
noperspective in vec3 t0;
noperspective in vec3 t1;
out float result;

void main() {
    int i = int(t0.y), j = int(t1.x);
    float g = texelFetch(G, ivec2(gl_FragCoord.xy), 0).r;
    result = kernel_value(g, texelFetch(n, ivec2(i, 0), 0).r, texelFetch(n, ivec2(t1.xy), 0).r);
    if (i == j) result += u_diag;
}
