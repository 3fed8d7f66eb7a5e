#version 430
// Benchmark (issue 17): the row operand of gemm_uniform_rows.frag, (A D) repacked so
// that one draw's BR rows and KC k-texels are one contiguous range of a buffer
// (at most 64 KiB: one uniform block).  Texel (kk BR + r, R u_nchunks + ch) holds
// (A D)(R BR + r, k-texel ch KC + kk); a row-major copy of this texture is the buffer.
#ifndef BR
#define BR 32
#endif
#ifndef KC
#define KC 128
#endif
uniform sampler2D A;      // RGBA, texel (k, i) = A(i, 4k .. 4k+3)
uniform sampler2D d;      // 1 x n4
uniform int u_nchunks;
uniform int u_n4;
uniform int u_rows;       // rows of A's texture
out vec4 result;

void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);
    int kk = at.x / BR, r = at.x - kk * BR;
    int R = at.y / u_nchunks, ch = at.y - R * u_nchunks;
    int k = ch * KC + kk;
    int i = R * BR + r;
    result = (k < u_n4 && i < u_rows) ? texelFetch(A, ivec2(k, i), 0) * texelFetch(d, ivec2(k, 0), 0) : vec4(0.0);
}
