#version 430
// method="compute": the LP's normal matrix M = A D A^T + delta I, each entry summed on the GPU
// from the pairs of A's nonzeros that land on it (a pattern made once: NormalPattern's W, whose
// row e holds a_ij a_kj at column j), scaled to a unit diagonal and shifted, into its place in
// the zeroed float64 factor buffer:
//     a[at[e]] = (((sum_t w[t] d[col[t]] + delta [diagonal]) inv[c]) inv[r]) + shift [diagonal]
// `precise`: the same roundings, in the same order, as the host's CSR product and scaling.
// An entry sums at most 65,535 terms (EntryPlaces refuses more): a software rasterizer ends
// any loop there, nested or not (llvmpipe's counter spans the invocation).
layout(local_size_x = 256) in;
layout(std430, binding = 0) writeonly buffer ABuf { double a[]; };
layout(std430, binding = 1) readonly buffer IBuf { int ints[]; };     // at | r, c | W's row pointers | W's columns
layout(std430, binding = 2) readonly buffer WBuf { double w[]; };
layout(std430, binding = 3) readonly buffer VBuf { double v[]; };     // d (n) | inv (m) | delta, shift
uniform int u_count;        // entries
uniform int u_rc;           // where (r, c) pairs start in ints
uniform int u_ptr;          // where W's row pointers start
uniform int u_col;          // where W's columns start
uniform int u_inv;          // where inv starts in v (= n)
uniform int u_m;

void main() {
    int e = int(gl_GlobalInvocationID.x) + int(gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x);
    if (e >= u_count) return;
    precise double sum = 0.0;
    for (int t = ints[u_ptr + e]; t < ints[u_ptr + e + 1]; ++t)
        sum += w[t] * v[ints[u_col + t]];
    int r = ints[u_rc + 2 * e], c = ints[u_rc + 2 * e + 1];
    if (r == c) sum += v[u_inv + u_m];
    precise double x = sum * v[u_inv + c];
    x = x * v[u_inv + r];
    if (r == c) x += v[u_inv + u_m + 1];
    a[ints[e]] = x;
}
