#version 430
// Experiment (experiments/tile_column_trsm.py): trsm_rows.comp over every tile of a tile
// column in one dispatch -- the tiles bound side by side (binding 2 + w), workgroup row
// block b of tile b / u_groups -- so the panel's substitutions run with the column's rows
// (up to TILES x 8,192) where one tile's 8,192 rows leave two warps an SM.  float32 only; the
// same arithmetic as trsm_rows.comp, row for row.
layout(local_size_x = 64) in;
#include "real.glsl"
#pragma optionNV(unroll all)
#ifndef NB
#define NB 64
#endif
layout(std430, binding = 1) readonly buffer LBuf { real l[]; };
layout(std430, binding = 2) buffer ABuf { real a[]; } tiles[TILES];
uniform int u_loff;     // element (k0, k0) of L: L11
uniform int u_ldl;
uniform int u_aoff;     // element (0, k0) of every tile: the panel's first row
uniform int u_ld;       // every tile's row stride
uniform int u_nb;
uniform int u_groups;   // workgroups a tile (its rows / 64, rounded up)
uniform int u_rows;     // rows of each tile but the last
uniform int u_last_rows;
LOWER_SHARED(Ls);

void main() {
    int t = int(gl_LocalInvocationIndex);
    for (int e = t; e < u_nb * u_nb; e += 64) {
        int i = e / u_nb, j = e % u_nb;
        if (j <= i) AT(Ls, i, j) = l[u_loff + i * u_ldl + j];
    }
    barrier();
    int w = int(gl_WorkGroupID.x) / u_groups;          // the tile: one value a workgroup
    int i = (int(gl_WorkGroupID.x) % u_groups) * 64 + t;
    if (i >= (w == TILES - 1 ? u_last_rows : u_rows)) return;
    PRIV x[NB];
    for (int j = 0; j < NB; ++j)
        x[j] = TO_PRIV(j < u_nb ? tiles[w].a[u_aoff + i * u_ld + j] : real(0.0));
    for (int j = 0; j < NB; ++j) {
        if (j >= u_nb) break;
        real s = FROM_PRIV(x[j]);
        for (int l = 0; l < j; ++l)
            s -= FROM_PRIV(x[l]) * AT(Ls, j, l);
        x[j] = TO_PRIV(DIV(s, AT(Ls, j, j)));
    }
    for (int j = 0; j < NB; ++j)
        if (j < u_nb) tiles[w].a[u_aoff + i * u_ld + j] = FROM_PRIV(x[j]);
}
