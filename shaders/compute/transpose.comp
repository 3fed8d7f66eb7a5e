#version 430
// method="compute": B = A^T for a square tile (data movement only): the solves with
// L^T read transposed tiles; FP64: doubles (the float64 Cholesky of an upper triangle).
layout(local_size_x = 16, local_size_y = 16) in;
#include "real.glsl"
layout(std430, binding = 0) readonly buffer SBuf { real src[]; };
layout(std430, binding = 1) writeonly buffer DBuf { real dst[]; };
uniform int u_n;
uniform int u_lds;
uniform int u_ldd;

void main() {
    int j = int(gl_GlobalInvocationID.x), i = int(gl_GlobalInvocationID.y);
    if (i < u_n && j < u_n) dst[j * u_ldd + i] = src[i * u_lds + j];
}
