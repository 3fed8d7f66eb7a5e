#version 330
// Level-2 kernel: y = A^T x in the inner-product form, single pass.  Fragment j
// of the n x 1 target walks down column j of A (the swizzle of matvec's index).
uniform sampler2D A;   // m x n
uniform sampler2D x;   // m x 1
uniform int u_m;
out float result;

void main() {
    int j = int(gl_FragCoord.y);
    float acc = 0.0;
    for (int i = 0; i < u_m; ++i)
        acc += texelFetch(A, ivec2(j, i), 0).r * texelFetch(x, ivec2(0, i), 0).r;
    result = acc;
}
