#version 430
// method="compute": y[e] += p[e] + p[u_slab + e] + ... + p[(u_slabs - 1) u_slab + e] for the
// first u_count numbers, in that order -- partial sums made side by side (a chunk of a sum
// each, as kernel_product64.comp's) added as one loop over the chunks would have.
// FP64: the numbers are doubles (real.glsl).
layout(local_size_x = 256) in;
#include "real.glsl"
layout(std430, binding = 0) readonly buffer PBuf { real p[]; };
layout(std430, binding = 1) buffer YBuf { real y[]; };
uniform int u_count;
uniform int u_slabs;
uniform int u_slab;

void main() {
    int e = int(gl_GlobalInvocationID.x) + int(gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x);
    if (e >= u_count) return;
    real s = y[e];
    for (int q = 0; q < u_slabs; ++q) s += p[q * u_slab + e];
    y[e] = s;
}
