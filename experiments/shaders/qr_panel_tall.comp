#version 430
// method="compute": Householder QR of one tall panel of kb <= NBQ columns by ONE
// workgroup, column by column as LAPACK's geqr2 (the same arithmetic as qr_panel.comp
// and qr_panel_rows.comp).  qr_panel_rows spreads a column over many workgroups and so
// needs a dispatch a column (its sums meet across workgroups); here the column steps
// meet at a workgroup barrier instead, so a panel is one dispatch.
// The panel is copied into a column-major scratch first (32 x 32 tiles through shared
// memory) and back at the end: a thread owns rows (j0 + t + k PT), and in column-major
// order a warp's 32 rows of one column are one memory transaction, where in A's
// row-major order they were 32.
// Each step, as qr_panel_rows's: column c is finished from the sums left by the step
// before (dlarfg's beta, tau, v; w = tau v^T A for the later columns), the later
// columns reflected, and in the same pass over the rows the next column's sums taken:
// its squares below the diagonal and the dots of that part with the columns right of
// it.  Sums run in a fixed order: the result does not depend on timing.
// PT: threads (the reductions' shared memory bounds it: 32 KiB on llvmpipe, 48 on NVIDIA).
// FP64: the same in double.
#include "real.glsl"
#ifndef PT
#ifdef FP64
#define PT 96
#else
#define PT 192
#endif
#endif
layout(local_size_x = PT) in;
layout(std430, binding = 0) coherent buffer ABuf { real qa[]; };
layout(std430, binding = 1) buffer TauBuf { real tau[]; };
layout(std430, binding = 2) coherent buffer PBuf { real pc[]; };    // the panel, column-major
#include "qr_common.glsl"
uniform int u_m;
uniform int u_ld;
uniform int u_j0;
uniform int u_kb;
// the NBQ + 1 sums' per-thread terms, a row of RS each: RS = 4 (mod 32) (see qr_panel_rows)
#define RS (PT + 4)
#define PARTS 4
shared real red[(NBQ + 1) * RS];
shared real red4[(NBQ + 1) * PARTS];
shared real s_w[NBQ];
#define TILE 32
// row i (absolute), column col (absolute) of the panel in the scratch
#define P(i, col) pc[((col) - u_j0) * rows + ((i) - u_j0)]

// the panel between A (row-major) and the scratch (column-major), a 32 x 32 tile at a
// time through `red` (free outside the steps): reads and writes both by whole rows
void move(bool into_scratch, int rows) {
    int t = int(gl_LocalInvocationIndex);
    for (int r0 = 0; r0 < rows; r0 += TILE) {
        for (int e = t; e < TILE * TILE; e += PT) {
            int a = e / TILE, b = e % TILE;           // into: a row, b column; back: a column, b row
            if (into_scratch) {
                if (r0 + a < rows && b < u_kb) red[a * (TILE + 1) + b] = qa[(u_j0 + r0 + a) * u_ld + u_j0 + b];
            } else {
                if (r0 + b < rows && a < u_kb) red[b * (TILE + 1) + a] = pc[a * rows + r0 + b];
            }
        }
        barrier();
        for (int e = t; e < TILE * TILE; e += PT) {
            int a = e / TILE, b = e % TILE;           // into: a column, b row; back: a row, b column
            if (into_scratch) {
                if (r0 + b < rows && a < u_kb) pc[a * rows + r0 + b] = red[b * (TILE + 1) + a];
            } else {
                if (r0 + a < rows && b < u_kb) qa[(u_j0 + r0 + a) * u_ld + u_j0 + b] = red[a * (TILE + 1) + b];
            }
        }
        barrier();
    }
}

void main() {
    int t = int(gl_LocalInvocationIndex);
    int rows = u_m - u_j0;
    move(true, rows);
    memoryBarrierBuffer();
    barrier();
    for (int jj = -1; jj < u_kb; ++jj) {
        int c = u_j0 + jj;                   // the column finished in this step (none at -1)
        int nq = u_kb - jj - 1;              // the panel's columns right of c
        real beta = real(0.0), live = real(0.0), scale = real(0.0);
        if (jj >= 0) {
            // the sums of the step before: squares below the diagonal, the dots, then dlarfg
            // (every thread alike: no barrier to hand the scalars round)
            real sigma = (red4[PARTS * NBQ] + red4[PARTS * NBQ + 1]) + (red4[PARTS * NBQ + 2] + red4[PARTS * NBQ + 3]);
            householder(P(c, c), sigma, beta, live, scale);
            if (t == 0) tau[c] = live;
            // w_q = tau (A(c, q) + v_below^T A(below, q)) for the later columns q
            if (t < nq) {
                real dot = (red4[PARTS * t] + red4[PARTS * t + 1]) + (red4[PARTS * t + 2] + red4[PARTS * t + 3]);
                s_w[t] = live * (P(c, c + 1 + t) + scale * dot);
            }
            barrier();                       // s_w written; the pivot row read by all
        }
        real sq = real(0.0);
        PRIV acc[NBQ];
        for (int q = 0; q < NBQ; ++q) acc[q] = TO_PRIV(real(0.0));
        int cn = c + 1;                      // the column whose sums are taken next
        int nqn = nq - 1;
        bool next = cn < u_j0 + u_kb;
        for (int i = u_j0 + t; i < u_m; i += PT) {
            if (jj >= 0 && i >= c) {
                real v = real(1.0);
                if (i == c) P(i, c) = beta;
                else { v = P(i, c) * scale; P(i, c) = v; }
                for (int q = 0; q < NBQ; ++q)
                    if (q < nq) P(i, c + 1 + q) -= v * s_w[q];
            }
            if (next && i > cn) {
                real x = P(i, cn);
                sq += x * x;
                for (int q = 0; q < NBQ; ++q)
                    if (q < nqn) acc[q] = TO_PRIV(FROM_PRIV(acc[q]) + x * P(i, cn + 1 + q));
            }
        }
        memoryBarrierBuffer();               // the pivot row, updated above, is read next step
        if (!next) break;
        for (int q = 0; q < NBQ; ++q) red[q * RS + t] = FROM_PRIV(acc[q]);
        red[NBQ * RS + t] = sq;
        barrier();
        // each sum in PARTS parts of PT / PARTS terms (part p: terms p, p + PARTS, ...)
        for (int u = t; u < (NBQ + 1) * PARTS; u += PT) {
            int q = u / PARTS;
            real s = real(0.0);
            for (int i = u % PARTS; i < PT; i += PARTS) s += red[q * RS + i];
            red4[u] = s;
        }
        barrier();
    }
    barrier();
    move(false, rows);
}
