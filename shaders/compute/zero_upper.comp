#version 430
// method="compute": zero a square matrix above its diagonal (data movement only); FP64:
// a matrix of doubles.
layout(local_size_x = 16, local_size_y = 16) in;
#include "real.glsl"
layout(std430, binding = 0) buffer ABuf { real a[]; };
uniform int u_m;
uniform int u_ld;

void main() {
    int j = int(gl_GlobalInvocationID.x), i = int(gl_GlobalInvocationID.y);
    if (i < u_m && j < u_m && j > i) a[i * u_ld + j] = real(0.0);
}
