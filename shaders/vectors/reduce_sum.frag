#version 330
// Sum reduction (inner products after vmul). Level-1 kernel of Jung 2006, section 4.2.
float identity() { return 0.0; }
float combine(float a, float b) { return a + b; }
#include "reduce_pass.glsl"
