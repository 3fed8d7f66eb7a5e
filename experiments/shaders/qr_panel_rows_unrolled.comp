#version 430
// experiments/qr_rows_unrolled.py: qr_panel_rows.comp with the chunks' partial sums read
// eight at a time (eight independent loads in flight, then their adds) instead of one load
// and one add a chunk.  Otherwise as shipped:
// method="compute": one column of a tall panel's Householder QR (LAPACK's geqr2, the
// same arithmetic as qr_panel.comp) spread over many workgroups, each owning a chunk
// of u_rows rows.  One dispatch per column: it finishes column c = j0 + u_jj from
// every chunk's partial sums (left by the dispatch before), then sums the next
// column's partials over its own rows.  Partials per chunk (PW floats): sigma (the
// squares below the diagonal), alpha (the diagonal entry), the dots of the column's
// part below the diagonal with the panel's later columns, and the pivot row's
// entries in those columns -- so no workgroup reads an entry another one writes in
// the same dispatch.  Sums run in a fixed order: the result does not depend on timing.
// FP64: the same in double (64 threads: the reductions' shared memory).
#include "real.glsl"
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
// the NBQ + 1 sums' per-thread terms, a row of RS each: RS = 4 (mod 32), so a warp's 32
// threads, summing 8 sums' 4 interleaved parts, read 32 different banks
#define RS (T + 4)
shared real red[(NBQ + 1) * RS];
shared real red4[(NBQ + 1) * 4];
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
            for (; k + 8 <= u_nch; k += 8) {
                real p0 = part[base + k * PW + e], p1 = part[base + (k + 1) * PW + e];
                real p2 = part[base + (k + 2) * PW + e], p3 = part[base + (k + 3) * PW + e];
                real p4 = part[base + (k + 4) * PW + e], p5 = part[base + (k + 5) * PW + e];
                real p6 = part[base + (k + 6) * PW + e], p7 = part[base + (k + 7) * PW + e];
                s += ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7));
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
    for (int q = 0; q < NBQ; ++q) red[q * RS + t] = FROM_PRIV(acc[q]);
    red[NBQ * RS + t] = sq;
    barrier();
    // each sum in 4 parts of T / 4 terms (part p: terms p, p + 4, ...), one thread a part, then
    // the parts added: two barriers where a tree over the threads took log2(T)
    for (int u = t; u < (NBQ + 1) * 4; u += T) {
        int q = u >> 2;
        real s = real(0.0);
        for (int i = u & 3; i < T; i += 4) s += red[q * RS + i];
        red4[u] = s;
    }
    barrier();
    // the pivot row's entries come from the chunk holding it; every other chunk adds zeros
    bool mine = cn >= r0 && cn < r1;
    int dst = ((u_jj + 1) & 1) * u_nch * PW + ch * PW;
    if (t == 0) {
        part[dst + SIGMA] = (red4[4 * NBQ] + red4[4 * NBQ + 1]) + (red4[4 * NBQ + 2] + red4[4 * NBQ + 3]);
        part[dst + ALPHA] = mine ? qa[cn * u_ld + cn] : real(0.0);
    }
    if (t < NBQ) {
        part[dst + DOT + t] = t < nqn ? (red4[4 * t] + red4[4 * t + 1]) + (red4[4 * t + 2] + red4[4 * t + 3]) : real(0.0);
        part[dst + PIVOT + t] = (mine && t < nqn) ? qa[cn * u_ld + cn + 1 + t] : real(0.0);
    }
}
