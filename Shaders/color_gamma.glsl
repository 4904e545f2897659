// Colour piece: gamma. Raises R, G and B to the power `gamma` (> 0): above 1 darkens the mid-tones.
uniform float PIECE_gamma;

vec4 PIECE_apply(vec4 color) {
    return vec4(pow(max(color.rgb, vec3(0.0)), vec3(PIECE_gamma)), color.a);
}
