#version 430
// method="compute": the Apply's first product, W = V^T C for one panel's reflectors
// and the columns of C (rows j0 .. m): one workgroup per NBQ columns of C, rows in
// chunks through shared memory, 4 entries of W per thread.
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer ABuf { float qa[]; };
layout(std430, binding = 1) readonly buffer CBuf { float cc[]; };
layout(std430, binding = 2) writeonly buffer WBuf { float w[]; };
#include "qr_common.glsl"
uniform int u_m;
uniform int u_ld;            // of A (the reflectors)
uniform int u_j0;
uniform int u_kb;
uniform int u_ldc;
uniform int u_c0;            // C's first column
uniform int u_nc;            // C's columns
#define CH 32
shared float Vs[CH][NBQ + 1];
shared float Cs[CH][NBQ + 1];

void main() {
    int t = int(gl_LocalInvocationIndex);
    int q0 = int(gl_WorkGroupID.x) * NBQ;          // this workgroup's columns of C
    float acc[4] = float[4](0.0, 0.0, 0.0, 0.0);
    for (int i0 = u_j0; i0 < u_m; i0 += CH) {
        for (int e = t; e < CH * NBQ; e += 256) {
            int r = e / NBQ, a = e % NBQ, i = i0 + r, q = q0 + a;
            Vs[r][a] = (i < u_m && a < u_kb) ? v_at(i, a, u_j0, u_ld) : 0.0;
            Cs[r][a] = (i < u_m && q < u_nc) ? cc[i * u_ldc + u_c0 + q] : 0.0;
        }
        barrier();
        for (int s = 0; s < 4; ++s) {
            int e = t + 256 * s, a = e / NBQ, q = e % NBQ;
            for (int r = 0; r < CH; ++r) acc[s] += Vs[r][a] * Cs[r][q];
        }
        barrier();
    }
    for (int s = 0; s < 4; ++s) {
        int e = t + 256 * s, a = e / NBQ, q = q0 + e % NBQ;
        if (a < u_kb && q < u_nc) w[a * u_nc + q] = acc[s];
    }
}
