// Colour piece: brightness. Adds `amount` (-1...1) to R, G and B.
// Pieces are fused into one pass by ColorChain; `PIECE_` is replaced by a per-instance prefix.
uniform float PIECE_amount;

vec4 PIECE_apply(vec4 color) {
    return vec4(color.rgb + PIECE_amount, color.a);
}
