#version 300 es
// Shrinks a frame for a detector: the mean of four bilinear taps a quarter of an output texel
// from the centre, so at 4:1 every input texel of the output texel's 4x4 block counts once
// (one bilinear tap would alias: fine patterns such as barcodes would break up).
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;
uniform vec2 outputTexel;  // 1 / the output size
out vec4 fragColor;

void main() {
    vec2 step = outputTexel * 0.25;
    fragColor = 0.25 * (texture(inputImageTexture, textureCoordinate + vec2(-step.x, -step.y))
                      + texture(inputImageTexture, textureCoordinate + vec2(step.x, -step.y))
                      + texture(inputImageTexture, textureCoordinate + vec2(-step.x, step.y))
                      + texture(inputImageTexture, textureCoordinate + vec2(step.x, step.y)));
}
