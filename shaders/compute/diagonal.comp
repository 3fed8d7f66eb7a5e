#version 430
// method="compute": the diagonal of a square matrix into a vector (the pivots).
layout(local_size_x = 256) in;
#include "real.glsl"
layout(std430, binding = 0) readonly buffer ABuf { real a[]; };
layout(std430, binding = 1) writeonly buffer DBuf { real d[]; };
uniform int u_m;
uniform int u_ld;

void main() {
    int i = int(gl_GlobalInvocationID.x);
    if (i < u_m) d[i] = a[i * u_ld + i];
}
