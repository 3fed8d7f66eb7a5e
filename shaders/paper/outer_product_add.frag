#version 330
// Kernel 2 (2008 paper, section 3.2): outer-product addition over the lower triangle,
// C_T(j, i) = C_S(j, i) + A(j, k) * b(i), for a fragment at (x, y) = (column i, row j).
// WPOS is gl_FragCoord; T0 = (k+.5, j) fetches A, T1 = (i, .5) fetches b (Fig. 2(b),
// or Fig. 4 in the packed format, where T0/T1 point at the unpacked A and b).
uniform sampler2D C;   // source C_S (same layout as the target)
uniform sampler2D A;   // m x n
uniform sampler2D b;   // 1 x m, the scaled column from Kernel 1
noperspective in vec3 t0;
noperspective in vec3 t1;
out float result;

void main() {
    result = texelFetch(C, ivec2(gl_FragCoord.xy), 0).r
           + texelFetch(A, ivec2(t0.xy), 0).r * texelFetch(b, ivec2(t1.xy), 0).r;
}
