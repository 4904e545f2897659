// Colour piece: grayscale with the BT.709 luma weights.
vec4 PIECE_apply(vec4 color) {
    return vec4(vec3(dot(color.rgb, vec3(0.2126, 0.7152, 0.0722))), color.a);
}
