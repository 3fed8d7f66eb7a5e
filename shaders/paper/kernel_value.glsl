// The LS-SVM kernel function from a Gram entry g = x_i.x_j and the squared norms
// n_i, n_j (kernel_function.frag and the blocked epilogue share it):
// kind 0 linear g, 1 polynomial (gamma g + coef0)^degree, 2 RBF
// exp(-gamma ||x_i - x_j||^2) with ||x_i - x_j||^2 = n_i + n_j - 2 g.
uniform int u_kind;
uniform float u_gamma;
uniform float u_coef0;
uniform int u_degree;
uniform float u_diag;          // added on the diagonal: LS-SVM's 1/C (0 for a plain kernel matrix)

float kernel_value(float g, float ni, float nj) {
    if (u_kind == 1) {
        float base = u_gamma * g + u_coef0, p = 1.0;
        for (int k = 0; k < u_degree; ++k) p *= base;     // pow() is undefined for a negative base
        return p;
    }
    if (u_kind == 2) return exp(-u_gamma * max(ni + nj - 2.0 * g, 0.0));
    return g;
}
