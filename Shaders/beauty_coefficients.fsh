#version 300 es
// Beauty, pass 3 (reduced resolution): vertical 5-texel means of pass 2 give the 5x5 window's mean
// and variance of the luma; the guided filter's coefficients for the window follow:
// a = var / (var + epsilon), b = mean (1 - a), so that a Y + b smooths where the window's
// variance is small against epsilon and keeps edges where it is large. Alpha carries the skin
// likelihood of pass 1 (input 2).
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;   // pass 2: packed means of Y and Y²
uniform sampler2D inputImageTexture2;  // pass 1: mean colour and skin likelihood
out vec4 fragColor;

uniform float epsilon;

float unpack16(vec2 pair) {
    return (pair.x * 255.0 + pair.y) / 255.0;
}

void main() {
    ivec2 size = textureSize(inputImageTexture, 0);
    ivec2 position = ivec2(gl_FragCoord.xy);
    float mean = 0.0;
    float meanOfSquares = 0.0;
    for (int offset = -2; offset <= 2; ++offset) {
        vec4 moments = texelFetch(inputImageTexture, ivec2(position.x, clamp(position.y + offset, 0, size.y - 1)), 0);
        mean += unpack16(moments.xy);
        meanOfSquares += unpack16(moments.zw);
    }
    mean /= 5.0;
    meanOfSquares /= 5.0;
    float variance = max(meanOfSquares - mean * mean, 0.0);
    float a = variance / (variance + epsilon);
    float skin = texelFetch(inputImageTexture2, position, 0).a;
    fragColor = vec4(a, mean * (1.0 - a), skin, 1.0);
}
