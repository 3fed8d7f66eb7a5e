#version 430
// method="compute": set the first u_count floats of a buffer to u_value.
layout(local_size_x = 256) in;
layout(std430, binding = 0) writeonly buffer ABuf { float a[]; };
uniform int u_count;
uniform float u_value;

void main() {
    int i = int(gl_GlobalInvocationID.x) + int(gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x);
    if (i < u_count) a[i] = u_value;
}
