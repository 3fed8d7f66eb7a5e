#version 430
// method="blocked" (beyond the papers): register-blocked A D^2 A^T.  One fragment
// owns a BR x BC block of C (BR rows, BC columns, BC a multiple of 4) and
// accumulates it over k = 4*u_k0 .. 4*u_k1-1, four k per step, so each step
// fetches BR + BC RGBA texels for 4 BR BC multiply-adds (the paper's Kernel 2
// fetches 3 texels per multiply-add).  Still drawn as one triangle over the lower
// *block* triangle (Fig. 2(b) on the block grid; its slope is BR / BC).
// Storage: RGBA32F, texel (X, i) holds row i, columns 4X .. 4X+3.  C is read and
// written in place through an image: each block belongs to one fragment.
// With FULL defined (an off-diagonal tile of a tiled matrix) every
// block of C is drawn and kept: C = C + (A D) B^T for two different operands.
#include "blocked_adat_body.glsl"
