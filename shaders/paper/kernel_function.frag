#version 330
// The LS-SVM kernel matrix's epilogue (issue 15): K(i, j) = k(x_i, x_j) from the
// Gram matrix G = X X^T that Algorithm 3 assembled, over the lower triangle only --
// drawn with Fig. 2(b)'s triangle (Fig. 4's two in the packed format), whose T0.y
// carries the row i and T1.x the column j in the full format.  G is read at the
// fragment's own texel (same layout); the squared norms n_i = G(i, i) come from a
// 1 x N row.  u_kind: 0 linear, 1 polynomial (gamma g + coef0)^degree, 2 RBF
// exp(-gamma ||x_i - x_j||^2) with ||x_i - x_j||^2 = n_i + n_j - 2 g.
uniform sampler2D G;
uniform sampler2D n;
uniform int u_kind;
uniform float u_gamma;
uniform float u_coef0;
uniform int u_degree;
uniform float u_diag;          // added on the diagonal: LS-SVM's 1/C (0 for a plain kernel matrix)
noperspective in vec3 t0;
noperspective in vec3 t1;
out float result;

void main() {
    float g = texelFetch(G, ivec2(gl_FragCoord.xy), 0).r;
    if (u_kind == 0) {
        result = g;
    } else if (u_kind == 1) {
        float base = u_gamma * g + u_coef0, p = 1.0;
        for (int k = 0; k < u_degree; ++k) p *= base;     // pow() is undefined for a negative base
        result = p;
    } else {
        int i = int(t0.y), j = int(t1.x);
        float d2 = texelFetch(n, ivec2(i, 0), 0).r + texelFetch(n, ivec2(j, 0), 0).r - 2.0 * g;
        result = exp(-u_gamma * max(d2, 0.0));
    }
    if (int(t0.y) == int(t1.x)) result += u_diag;
}
