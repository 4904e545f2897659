// Colour piece: exposure. Multiplies R, G and B by 2^ev.
uniform float PIECE_ev;

vec4 PIECE_apply(vec4 color) {
    return vec4(color.rgb * exp2(PIECE_ev), color.a);
}
