#version 330
// Min reduction (smin; step lengths). Level-1 kernel of Jung 2006, section 4.2.
float identity() { return 3.4e38; }
float combine(float a, float b) { return min(a, b); }
#include "reduce_pass.glsl"
