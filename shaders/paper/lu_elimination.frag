#version 330
// Elimination of an LU factorization by rasterization, Galoppo et al. (2005) as
// compared in Jung & O'Leary 2008, section 5.2 and Jung 2006, Table 1(a):
// A(i, j) = A(i, j) - L(i, k) * U(k, j) over the *square* trailing domain,
// the neighbour at T0 = (k+.5, i) and the pivot row at T1 = (j, k+.5) (no swizzle:
// LU updates both triangles).  The benchmark comparator for Cholesky.
uniform sampler2D S;
noperspective in vec3 t0;
noperspective in vec3 t1;
out float result;

void main() {
    result = texelFetch(S, ivec2(gl_FragCoord.xy), 0).r
           - texelFetch(S, ivec2(t0.xy), 0).r * texelFetch(S, ivec2(t1.xy), 0).r;
}
