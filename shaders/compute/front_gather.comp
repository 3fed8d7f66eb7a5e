#version 430
// method="compute", sparse QR: a child's contribution block into its parent (Yeralan
// et al. 2015, section 3.3.1): block row r goes to the parent's row prow[r], block
// column j to the parent's column pcol[j] -- every parent entry has one source, so no
// write conflicts -- scaled by u_factor (a power of two: the two fronts' scalings).
// The block is the upper triangle (j >= r) of the rows after the child's pivots.
// IDENTITY: no maps (a block, or R's rows, copied compactly out of the front).
layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 0) readonly buffer SBuf { float src[]; };
layout(std430, binding = 1) buffer DBuf { float dst[]; };
#ifndef IDENTITY
layout(std430, binding = 2) readonly buffer MBuf { int maps[]; };
#endif
uniform int u_rows;          // the block's rows
uniform int u_cols;          // and columns
uniform int u_soff;          // its first entry in SBuf
uniform int u_lds;
uniform int u_ldd;
uniform int u_moff;          // prow at maps[u_moff], pcol after it
uniform int u_doff;          // the front's (or the block's) first entry in DBuf
uniform float u_factor;

void main() {
    int j = int(gl_GlobalInvocationID.x), r = int(gl_GlobalInvocationID.y);
    if (r >= u_rows || j >= u_cols) return;
#ifdef IDENTITY
    dst[u_doff + r * u_ldd + j] = j >= r ? src[u_soff + r * u_lds + j] : 0.0;
#else
    int pr = maps[u_moff + r];           // -1: a block row no parent row takes (it is zero)
    if (j >= r && pr >= 0) dst[u_doff + pr * u_ldd + maps[u_moff + u_rows + j]] = u_factor * src[u_soff + r * u_lds + j];
#endif
}
