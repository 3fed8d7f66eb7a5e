#version 430
// method="compute": a float64 matrix from its nonzero entries, a[at[e]] = v[e], into a
// zeroed buffer (the LP's float64 factor: M's lower triangle; each position once).
layout(local_size_x = 256) in;
layout(std430, binding = 0) writeonly buffer ABuf { double a[]; };
layout(std430, binding = 1) readonly buffer IBuf { int at[]; };
layout(std430, binding = 2) readonly buffer VBuf { double v[]; };
uniform int u_count;

void main() {
    int e = int(gl_GlobalInvocationID.x) + int(gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x);
    if (e < u_count) a[at[e]] = v[e];
}
