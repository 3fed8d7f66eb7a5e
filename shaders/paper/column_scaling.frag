#version 330
// Kernel 1 (Jung & O'Leary 2008, section 3.2): column scaling, b(i) = A(i, k) * d(k).
// Drawn over the m x 1 texture b with the rectangle of Fig. 2(a); every vertex
// carries the triad T0 = (x, k+.5, .5).  texRECT(A, index.yx) becomes texelFetch at
// T0.yx = (k+.5, i) -> A(i, k); texRECT(d, index.yz) at T0.yz = (k+.5, .5) -> d(k),
// where d holds the diagonal of D^2.
uniform sampler2D A;   // m x n (width n)
uniform sampler2D d;   // 1 x n (width n)
noperspective in vec3 t0;
out float result;

void main() {
    result = texelFetch(A, ivec2(t0.yx), 0).r * texelFetch(d, ivec2(t0.yz), 0).r;
}
