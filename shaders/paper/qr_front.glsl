// Householder QR by drawing: every rectangle carries its front's (x offset, m, n)
// in T0 (figures/qr.py), constant over the rectangle, so one draw serves a whole
// atlas of matrices.  Interpolated constants may be off by an ulp: round.
noperspective in vec3 t0;
int front_ox() { return int(t0.x + 0.5); }
int front_m()  { return int(t0.y + 0.5); }
int front_n()  { return int(t0.z + 0.5); }
