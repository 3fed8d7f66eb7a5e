#version 430
// Experiment (experiments/qr_panel_rows_variants.py): qr_panel_rows.comp with the sum of the
// chunks' partials loaded 8 at a time before they are added (the same order, the same bits),
// so the loads' latencies overlap instead of following one another.  KO_SUM, KO_ROWS, KO_RED:
// knockouts (wrong answers, for timing only) without the partials' sum, the row loop, the reduction.
#include "real.glsl"
#pragma optionNV(unroll all)
#ifdef FP64
#define T 64
#else
#define T 128
#endif
layout(local_size_x = T) in;
layout(std430, binding = 0) buffer ABuf { real qa[]; };
layout(std430, binding = 1) buffer TauBuf { real tau[]; };
layout(std430, binding = 2) buffer PartBuf { real part[]; };      // [2][chunks][PW]
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
uniform int u_jj;            // the column finished here (-1: none, only the first partials)
uniform int u_rows;          // rows per chunk (a multiple of T)
uniform int u_nch;           // chunks
shared real red[NBQ + 1][T];
shared real s_sum[PW];
shared real s_w[NBQ];
shared real s_scale;
shared real s_beta;
shared real s_live;

void main() {
    int t = int(gl_LocalInvocationIndex);
    int ch = int(gl_WorkGroupID.x);
    int r0 = u_j0 + ch * u_rows, r1 = min(u_m, r0 + u_rows);
    int c = u_j0 + u_jj;
    int nq = u_kb - u_jj - 1;            // the panel's columns right of c
    if (u_jj >= 0) {
        int base = (u_jj & 1) * u_nch * PW;
        for (int e = t; e < PW; e += T) {
            real s = real(0.0);
            int k = 0;
#ifdef KO_SUM
            k = u_nch;
            s = part[base + e];
#endif
            for (; k + 8 <= u_nch; k += 8) {
                real p[8];
                for (int u = 0; u < 8; ++u) p[u] = part[base + (k + u) * PW + e];
                for (int u = 0; u < 8; ++u) s += p[u];
            }
            for (; k < u_nch; ++k) s += part[base + k * PW + e];
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
#ifdef KO_ROWS
    for (int i = r0 + t; i < min(r1, r0 + 1); i += T) {
#else
    for (int i = r0 + t; i < r1; i += T) {
#endif
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
#ifndef KO_RED
    for (int s = T / 2; s > 0; s >>= 1) {
        if (t < s)
            for (int q = 0; q <= NBQ; ++q) red[q][t] += red[q][t + s];
        barrier();
    }
#endif
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
