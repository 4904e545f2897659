#version 300 es
// One direction of a separable, symmetric blur with linear-sampling taps: each of the `tapCount`
// pairs samples at +-offset texels along `texelStep`, where the bilinear filter blends two
// neighbouring texels with the weights the kernel gives them, so n texels cost about n / 2 samples.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

const int maximumTaps = 64;
uniform vec2 texelStep;        // one texel along the blur's direction, in texture coordinates
uniform float centerWeight;
uniform int tapCount;          // 0...maximumTaps
uniform vec2 taps[maximumTaps]; // (offset in texels, weight of the pair's each side)

void main() {
    vec4 sum = texture(inputImageTexture, textureCoordinate) * centerWeight;
    for (int index = 0; index < tapCount; ++index) {
        vec2 offset = taps[index].x * texelStep;
        sum += (texture(inputImageTexture, textureCoordinate + offset)
                + texture(inputImageTexture, textureCoordinate - offset)) * taps[index].y;
    }
    fragColor = sum;
}
