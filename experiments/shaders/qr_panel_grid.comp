#version 430
// Experiment (experiments/qr_panel_grid.py): qr_panel_rows.comp's tall-panel Householder QR
// in ONE dispatch a panel instead of one a column.  The same workgroups (a chunk of u_rows
// rows each) run every column of the panel in turn, and between columns all of them meet at
// a grid-wide barrier: an arrival counter in sync[0], never reset (this panel's arrivals start
// at u_base), each workgroup's thread 0 adding one and waiting until all u_nch have.  That is
// deadlock-free only where every workgroup of the dispatch is resident at once (u_nch at most
// one a multiprocessor on a large GPU); a wait that gives up (llvmpipe ends loops after 65,535
// iterations; or workgroups not resident) raises sync[1], and the host must then factor again
// a dispatch a column.  The arithmetic, the partial sums and their order are qr_panel_rows'.
#include "real.glsl"
#ifdef FP64
#define T 64
#else
#define T 128
#endif
layout(local_size_x = T) in;
layout(std430, binding = 0) coherent buffer ABuf { real qa[]; };
layout(std430, binding = 1) buffer TauBuf { real tau[]; };
layout(std430, binding = 2) coherent buffer PartBuf { real part[]; };      // [2][chunks][PW]
layout(std430, binding = 3) coherent buffer SyncBuf { int sync[]; };
#include "qr_common.glsl"
#define PW (2 * NBQ + 2)
#define SIGMA 0
#define ALPHA 1
#define DOT 2
#define PIVOT (2 + NBQ)
uniform int u_m;
uniform int u_ld;
uniform int u_j0;
uniform int u_kb;
uniform int u_base;          // the arrivals at the counter before this panel
uniform int u_rows;          // rows per chunk (a multiple of T)
uniform int u_nch;           // chunks
shared real red[NBQ + 1][T];
shared real s_sum[PW];
shared real s_w[NBQ];
shared real s_scale;
shared real s_beta;
shared real s_live;

void column(int u_jj) {
    int t = int(gl_LocalInvocationIndex);
    int ch = int(gl_WorkGroupID.x);
    int r0 = u_j0 + ch * u_rows, r1 = min(u_m, r0 + u_rows);
    int c = u_j0 + u_jj;
    int nq = u_kb - u_jj - 1;            // the panel's columns right of c
    if (u_jj >= 0) {
        int base = (u_jj & 1) * u_nch * PW;
        for (int e = t; e < PW; e += T) {
            real s = real(0.0);
            for (int k = 0; k < u_nch; ++k) s += part[base + k * PW + e];
            s_sum[e] = s;
        }
        barrier();
        if (t == 0) {
            real beta, live, scale;
            householder(s_sum[ALPHA], s_sum[SIGMA], beta, live, scale);
            s_live = live;
            s_scale = scale;
            s_beta = beta;
            if (ch == 0) tau[c] = s_live;
        }
        barrier();
        // w_q = tau (A(c, q) + v_below^T A(below, q)) for the later columns q
        if (t < nq) s_w[t] = s_live * (s_sum[PIVOT + t] + s_scale * s_sum[DOT + t]);
        barrier();
    }
    real sq = real(0.0);
    PRIV acc[NBQ];
    for (int q = 0; q < NBQ; ++q) acc[q] = TO_PRIV(real(0.0));
    int cn = c + 1;                       // the column whose partials are summed next
    int nqn = nq - 1;
    bool next = cn < u_j0 + u_kb;
    real scale = s_scale, beta = s_beta;
    for (int i = r0 + t; i < r1; i += T) {
        int row = i * u_ld;
        if (u_jj >= 0 && i >= c) {
            real v = real(1.0);
            if (i == c) qa[row + c] = beta;
            else { v = qa[row + c] * scale; qa[row + c] = v; }
            for (int q = 0; q < NBQ; ++q)
                if (q < nq) qa[row + c + 1 + q] -= v * s_w[q];
        }
        if (next && i > cn) {
            real x = qa[row + cn];
            sq += x * x;
            for (int q = 0; q < NBQ; ++q)
                if (q < nqn) acc[q] = TO_PRIV(FROM_PRIV(acc[q]) + x * qa[row + cn + 1 + q]);
        }
    }
    if (!next) return;
    memoryBarrierBuffer();                // the pivot row, updated above, is read below
    for (int q = 0; q < NBQ; ++q) red[q][t] = FROM_PRIV(acc[q]);
    red[NBQ][t] = sq;
    barrier();
    for (int s = T / 2; s > 0; s >>= 1) {
        if (t < s)
            for (int q = 0; q <= NBQ; ++q) red[q][t] += red[q][t + s];
        barrier();
    }
    // the pivot row's entries come from the chunk holding it; every other chunk adds zeros
    bool mine = cn >= r0 && cn < r1;
    int dst = ((u_jj + 1) & 1) * u_nch * PW + ch * PW;
    if (t == 0) {
        part[dst + SIGMA] = red[NBQ][0];
        part[dst + ALPHA] = mine ? qa[cn * u_ld + cn] : real(0.0);
    }
    if (t < NBQ) {
        part[dst + DOT + t] = t < nqn ? red[t][0] : real(0.0);
        part[dst + PIVOT + t] = (mine && t < nqn) ? qa[cn * u_ld + cn + 1 + t] : real(0.0);
    }
}

// every workgroup's writes so far visible to all, then wait for all u_nch to arrive at
// meeting `round` (1, 2, ...): thread 0 counts in, the others wait at the barrier
void meet(int round) {
    memoryBarrierBuffer();
    barrier();
    if (gl_LocalInvocationIndex == 0) {
        atomicAdd(sync[0], 1);
        int target = u_base + round * u_nch;
        for (int s = 0; s < 65535 && atomicAdd(sync[0], 0) < target; ++s)
            for (int u = 0; u < 65535 && atomicAdd(sync[0], 0) < target; ++u) { }
        if (atomicAdd(sync[0], 0) < target)
            atomicExchange(sync[1], 1);
        memoryBarrierBuffer();
    }
    barrier();
}

void main() {
    for (int jj = -1; jj < u_kb; ++jj) {
        column(jj);
        if (jj + 1 < u_kb)
            meet(jj + 2);
    }
}
