// method="compute", Householder QR: the panel's reflectors V (m x kb) live below the
// diagonal of A's panel columns j0 .. j0 + kb - 1, LAPACK's geqrf layout: V(i, a) is
// 0 above row j0 + a, 1 on it (implied) and A(i, j0 + a) below.
#ifndef NBQ
#define NBQ 32
#endif
float v_at(int i, int a, int j0, int ld) {
    int r = j0 + a;
    return i < r ? 0.0 : (i == r ? 1.0 : qa[i * ld + r]);
}
