#version 430
// The LS-SVM kernel matrix by the blocked path): blocked_adat's
// register-blocked Gram matrix X X^T (D = I), and on the last chunk of k, before
// each block is stored, the kernel function applied to every entry (an epilogue:
// no second pass over C).  NORMS holds the squared norms n_j, 4 per texel.
#define KERNEL 1
#include "kernel_value.glsl"
uniform sampler2D NORMS;
#ifdef COL_NORMS
// an off-diagonal tile of a tiled kernel matrix): its columns are
// another row band of X, with their own squared norms
uniform sampler2D NORMS_J;
#define NJ NORMS_J
#else
#define NJ NORMS
#endif
uniform int u_last;           // 1 on the last chunk of k: apply the kernel function

vec4 kernel_texel(vec4 g, int i, int j0) {
    float ni = texelFetch(NORMS, ivec2(i >> 2, 0), 0)[i & 3];
    vec4 nj = texelFetch(NJ, ivec2(j0 >> 2, 0), 0);
    vec4 out_;
    for (int c = 0; c < 4; ++c) out_[c] = kernel_value(g[c], ni, nj[c]) + ((j0 + c == i) ? u_diag : 0.0);
    return out_;
}
#include "blocked_adat_body.glsl"
