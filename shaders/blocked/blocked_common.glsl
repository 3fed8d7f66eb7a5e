// Blocked (RGBA32F) storage: texel (X, i) holds row i, columns 4X .. 4X+3.
// Rows and columns at or past u_m are the identity (padding to a multiple of the
// panel width), so padded blocks factor to I and change nothing.
uniform int u_m;

float elem(vec4 t, int j) { return t[j & 3]; }
