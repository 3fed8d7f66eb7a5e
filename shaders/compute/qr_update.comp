#version 430
// method="compute": the Apply's last step, C -= V op(T) W for one panel (op(T) = T^T
// for Q^T C, T for Q C): one workgroup per 64 rows x NBQ columns of C; each first
// forms its columns of op(T) W in shared memory, then 8 entries of C per thread.
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer ABuf { float qa[]; };
layout(std430, binding = 1) buffer CBuf { float cc[]; };
layout(std430, binding = 2) readonly buffer WBuf { float w[]; };
layout(std430, binding = 3) readonly buffer TBuf { float tt[]; };
#include "qr_common.glsl"
uniform int u_m;
uniform int u_ld;
uniform int u_j0;
uniform int u_kb;
uniform int u_ldc;
uniform int u_c0;
uniform int u_nc;
uniform int u_toff;
uniform int u_trans;         // 1: C -= V T^T W (Q^T C); 0: C -= V T W (Q C)
#define RB 64
shared float W2[NBQ][NBQ + 1];
shared float Vs[RB][NBQ + 1];

void main() {
    int t = int(gl_LocalInvocationIndex);
    int q0 = int(gl_WorkGroupID.x) * NBQ;
    int i0 = u_j0 + int(gl_WorkGroupID.y) * RB;
    for (int e = t; e < NBQ * NBQ; e += 256) {
        int a = e / NBQ, q = e % NBQ;
        float s = 0.0;
        if (a < u_kb && q0 + q < u_nc)
            for (int b = 0; b < u_kb; ++b) {
                float tab = u_trans == 1 ? tt[u_toff + b * NBQ + a] : tt[u_toff + a * NBQ + b];
                s += tab * w[b * u_nc + q0 + q];
            }
        W2[a][q] = s;
    }
    for (int e = t; e < RB * NBQ; e += 256) {
        int r = e / NBQ, a = e % NBQ, i = i0 + r;
        Vs[r][a] = (i < u_m && a < u_kb) ? v_at(i, a, u_j0, u_ld) : 0.0;
    }
    barrier();
    for (int s = 0; s < (RB * NBQ) / 256; ++s) {
        int e = t + 256 * s, r = e / NBQ, q = e % NBQ, i = i0 + r;
        if (i >= u_m || q0 + q >= u_nc) continue;
        float acc = 0.0;
        for (int a = 0; a < NBQ; ++a) acc += Vs[r][a] * W2[a][q];
        cc[i * u_ldc + u_c0 + q0 + q] -= acc;
    }
}
