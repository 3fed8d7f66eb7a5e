#version 430
// method="compute": copy a rows x cols matrix between two row strides (data movement
// only): compact transfers in and out, padded strides inside -- a power-of-two row
// stride sends every row of a column to the same memory partition.  VEC4: cols, both
// strides and both starts multiples of 4, a thread moves four numbers (a quarter of the
// loads: a copy at a long row stride waits on each).
layout(local_size_x = 16, local_size_y = 16) in;
#ifdef VEC4
layout(std430, binding = 0) readonly buffer SBuf { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer DBuf { vec4 dst[]; };
#define W 4
#else
layout(std430, binding = 0) readonly buffer SBuf { float src[]; };
layout(std430, binding = 1) writeonly buffer DBuf { float dst[]; };
#define W 1
#endif
uniform int u_rows;
uniform int u_cols;     // in numbers (VEC4: a multiple of 4)
uniform int u_lds;
uniform int u_ldd;
uniform int u_src0;     // where the block starts in src and in dst (numbers): a tile's columns in a row
uniform int u_dst0;

void main() {
    int j = int(gl_GlobalInvocationID.x) * W, i = int(gl_GlobalInvocationID.y);
    if (i < u_rows && j < u_cols) dst[(u_dst0 + i * u_ldd + j) / W] = src[(u_src0 + i * u_lds + j) / W];
}
