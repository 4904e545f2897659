// Colour piece: saturation. Moves each colour away from (or towards) its BT.709 luma:
// luma + (c - luma) * saturation.
uniform float PIECE_saturation;

vec4 PIECE_apply(vec4 color) {
    float luma = dot(color.rgb, vec3(0.2126, 0.7152, 0.0722));
    return vec4(mix(vec3(luma), color.rgb, PIECE_saturation), color.a);
}
