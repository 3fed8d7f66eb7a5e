#version 330
// Level-1 saxpy variant: element-wise quotient z = x ./ y (e.g. D^2 = X S^-1).
uniform sampler2D x;
uniform sampler2D y;
out float result;

void main() {
    ivec2 at = ivec2(gl_FragCoord.xy);
    result = texelFetch(x, at, 0).r / texelFetch(y, at, 0).r;
}
