#version 430
// method="compute": a lower triangle L (row-major, stride u_lds) written out as L^T,
// compact (stride u_m) and zero below its diagonal.  Read back, that is L by columns --
// the layout LAPACK's substitutions take -- without a copy on the host and without
// L's upper part.  Through a shared tile, so reads and writes are both coalesced.
layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer SBuf { float src[]; };
layout(std430, binding = 1) writeonly buffer DBuf { float dst[]; };
uniform int u_m;
uniform int u_lds;
shared float tile[16][17];

void main() {
    int bx = int(gl_WorkGroupID.x) * 16, by = int(gl_WorkGroupID.y) * 16;
    int tx = int(gl_LocalInvocationID.x), ty = int(gl_LocalInvocationID.y);
    int i = by + ty, j = bx + tx;                     // L's row i, column j
    tile[ty][tx] = (i < u_m && j <= i) ? src[i * u_lds + j] : 0.0;
    barrier();
    int r = bx + ty, c = by + tx;                     // dst[r][c] = L[c][r]
    if (r < u_m && c < u_m)
        dst[r * u_m + c] = tile[tx][ty];
}
