// Colour piece: contrast. Scales R, G and B about mid-gray: (c - 0.5) * contrast + 0.5.
uniform float PIECE_contrast;

vec4 PIECE_apply(vec4 color) {
    return vec4((color.rgb - 0.5) * PIECE_contrast + 0.5, color.a);
}
