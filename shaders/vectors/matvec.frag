#version 330
// Level-2 kernel (Jung 2006, section 4.2): y = A x in the inner-product form,
// single pass.  Fragment i of the m x 1 target loops over the n columns of row i.
uniform sampler2D A;   // m x n
uniform sampler2D x;   // n x 1
uniform int u_n;
out float result;

void main() {
    int i = int(gl_FragCoord.y);
    float acc = 0.0;
    for (int j = 0; j < u_n; ++j)
        acc += texelFetch(A, ivec2(j, i), 0).r * texelFetch(x, ivec2(0, j), 0).r;
    result = acc;
}
