// One pass of a multipass reduction (Jung 2006, section 4.2, "Multipass"): the
// target is a quarter as tall as the source column, and fragment y combines
// source rows 4y .. 4y+3 (those below u_len).  Drawing smaller and smaller
// rectangles reduces n values to one in ceil(log4 n) passes.
uniform sampler2D S;
uniform int u_len;
out float result;

void main() {
    int y = int(gl_FragCoord.y);
    float acc = identity();
    for (int j = 0; j < 4; ++j) {
        int r = 4 * y + j;
        if (r < u_len) acc = combine(acc, texelFetch(S, ivec2(0, r), 0).r);
    }
    result = acc;
}
