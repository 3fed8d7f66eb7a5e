// The kernels' number type: float32, or with FP64 defined float64 (GLSL 4.00's
// double; the compute method's float64 factor).  Uniforms and index arithmetic stay
// float and int.
// SET4(v, c, x): v[c] = x for a component c known only at run time (NVIDIA's compiler
// has no such store into a dvec4: "can't find __setVectorIndex").
#ifdef FP64
#define real double
#define real4 dvec4
#define SET4(V_, C_, X_) switch (C_) { case 0: V_.x = (X_); break; case 1: V_.y = (X_); break; case 2: V_.z = (X_); break; default: V_.w = (X_); }
#else
#define real float
#define real4 vec4
#define SET4(V_, C_, X_) V_[C_] = (X_)
#endif
// An NB x NB lower triangle in shared memory, element (i, j <= i) as AT(name, i, j):
// rows padded by one against bank conflicts (float32), or packed by rows (float64:
// 64 x 65 doubles would pass llvmpipe's 32 KiB of shared memory).
#ifdef FP64
#define LOWER_SHARED(name) shared real name[NB * (NB + 1) / 2]
#define AT(name, i, j) name[(i) * ((i) + 1) / 2 + (j)]
#else
#define LOWER_SHARED(name) shared real name[NB][NB + 1]
#define AT(name, i, j) name[i][j]
#endif
