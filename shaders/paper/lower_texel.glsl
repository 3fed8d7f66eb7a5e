// Shared by kernels that compute addresses themselves: the texel of element
// (i, j), i >= j, of a lower-triangular matrix in the full or the rectangular
// packed format (see glgpgpu/layouts/triangle.py for the formula, from Figs. 3 and 4).
uniform int u_m;        // matrix order
uniform int u_packed;   // 0: full format, 1: rectangular packed format

ivec2 lower_texel(int i, int j) {
    if (u_packed == 0) return ivec2(j, i);
    int w = (u_m + 1) / 2;
    int e = 1 - (u_m % 2);
    if (j < w) return ivec2(j, i + e);
    return ivec2(u_m - e - j, u_m - 1 - i);
}
