// Colour piece: levels. Maps [inputBlack, inputWhite] to [0, 1] (clipping outside), applies the
// mid-tone gamma as t^(1/gamma), then maps [0, 1] to [outputBlack, outputWhite]. An input range
// narrower than one level (1/255) is taken as one level wide.
uniform float PIECE_inputBlack;
uniform float PIECE_inputWhite;
uniform float PIECE_gamma;
uniform float PIECE_outputBlack;
uniform float PIECE_outputWhite;

vec4 PIECE_apply(vec4 color) {
    vec3 t = clamp((color.rgb - PIECE_inputBlack) / max(PIECE_inputWhite - PIECE_inputBlack, 1.0 / 255.0), 0.0, 1.0);
    t = pow(t, vec3(1.0 / PIECE_gamma));
    return vec4(mix(vec3(PIECE_outputBlack), vec3(PIECE_outputWhite), t), color.a);
}
