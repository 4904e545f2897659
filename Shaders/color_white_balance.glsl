// Colour piece: white balance. Per-channel gains for a warm/cool shift (`temperature`, -1...1:
// positive is warmer) and a green/magenta shift (`tint`, -1...1: positive is more magenta),
// normalised so that a gray keeps its BT.709 luma.
uniform float PIECE_temperature;
uniform float PIECE_tint;

vec4 PIECE_apply(vec4 color) {
    vec3 gains = vec3(1.0 + 0.2 * PIECE_temperature + 0.1 * PIECE_tint,
                      1.0 - 0.2 * PIECE_tint,
                      1.0 - 0.2 * PIECE_temperature + 0.1 * PIECE_tint);
    gains /= dot(gains, vec3(0.2126, 0.7152, 0.0722));
    return vec4(color.rgb * gains, color.a);
}
