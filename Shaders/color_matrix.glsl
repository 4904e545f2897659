// Colour piece: colour matrix. (R, G, B, A) -> matrix * (R, G, B, A) + offset, mixed with the
// original colour by `intensity` (0...1).
uniform mat4 PIECE_matrix;
uniform vec4 PIECE_offset;
uniform float PIECE_intensity;

vec4 PIECE_apply(vec4 color) {
    vec4 transformed = PIECE_matrix * color + PIECE_offset;
    return mix(color, transformed, PIECE_intensity);
}
