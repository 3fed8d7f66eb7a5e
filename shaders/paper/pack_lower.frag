#version 330
// Packing by drawing: fills the rectangular packed texture of Figs. 3/4 from a
// full m x m texture.  Each packed texel finds its element through the inverse
// of the packed index map (layouts/triangle.py): the left trapezoid holds
// (i, j) = (y - e, x), the rotated part (i, j) = (m - 1 - y, m - e - x).
uniform sampler2D S;    // the full matrix (only its lower triangle is read)
uniform int u_m;
out float result;

void main() {
    int x = int(gl_FragCoord.x), y = int(gl_FragCoord.y);
    int e = 1 - (u_m % 2);
    int i = y - e, j = x;
    if (!(i >= j && i < u_m)) {        // not the trapezoid: the rotated triangle
        j = u_m - e - x;
        i = u_m - 1 - y;
    }
    result = (i >= j && i >= 0 && i < u_m && j >= 0) ? texelFetch(S, ivec2(j, i), 0).r : 0.0;
}
