#version 330
// Copy kernel (2008 paper, Algorithm 5; 2006 paper, Fig. 4): copies the texels
// just written in L_T back into L_S, so that the next pass can read them
// without reading and writing one texture at once.
uniform sampler2D S;
out float result;

void main() {
    result = texelFetch(S, ivec2(gl_FragCoord.xy), 0).r;
}
