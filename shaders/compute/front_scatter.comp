#version 430
// method="compute", sparse QR: S-assembly (Yeralan et al. 2015, section 3.3.1) -- a
// front's own rows of A scattered into its zeroed buffer: entry e goes to float
// pos[e] of the front (row * ld + column, worked out on the host), value val[e].
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer FBuf { float f[]; };
layout(std430, binding = 1) readonly buffer EBuf { int ent[]; };     // (pos, float bits of the value) pairs
uniform int u_off;           // the front's first pair in EBuf
uniform int u_count;

void main() {
    int e = int(gl_GlobalInvocationID.x);
    if (e >= u_count) return;
    int k = 2 * (u_off + e);
    f[ent[k]] = intBitsToFloat(ent[k + 1]);
}
