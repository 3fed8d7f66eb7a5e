// method="compute", Householder QR: the panel's reflectors V (m x kb) live below the
// diagonal of A's panel columns j0 .. j0 + kb - 1, LAPACK's geqrf layout: V(i, a) is
// 0 above row j0 + a, 1 on it (implied) and A(i, j0 + a) below.  Include real.glsl
// first: `real` is float, or double with FP64 (the float64 QR of glgpgpu.linalg).
#ifndef NBQ
#define NBQ 32
#endif
// a sub-column whose sum of squares is under this counts as zero (H = I): the matrix
// comes scaled to max |A| in [0.5, 1), so float32's 2^-80 leaves a sub-column under 2^-40,
// far below its backward error, while sums that small lose the terms the GPU flushes to
// zero (and a sigma that does not match v makes a reflector that is not orthogonal);
// float64 keeps subnormals, so only sums past its normal range count as zero there
#ifdef FP64
#define SIGMA_ZERO 2.2250738585072014e-308lf
#else
#define SIGMA_ZERO 8.2718061e-25
#endif
real v_at(int i, int a, int j0, int ld) {
    int r = j0 + a;
    return i < r ? real(0.0) : (i == r ? real(1.0) : qa[i * ld + r]);
}
// the Householder vector of a column (LAPACK's dlarfg): from the column's diagonal
// entry alpha and its squares below sigma, (beta, tau, 1 / (alpha - beta)); H = I
// (tau = 0, beta = alpha) when nothing is below the diagonal
void householder(real alpha, real sigma, out real beta, out real tau_, out real scale) {
    if (sigma < SIGMA_ZERO) {
        beta = alpha;
        tau_ = real(0.0);
        scale = real(0.0);
    } else {
        beta = -sign(alpha == real(0.0) ? real(1.0) : alpha) * SQRT(alpha * alpha + sigma);
        tau_ = DIV(beta - alpha, beta);
        scale = DIV(real(1.0), alpha - beta);
    }
}
