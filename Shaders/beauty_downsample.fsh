#version 300 es
// Beauty, pass 1 (reduced resolution): the mean colour of the input block under each output pixel,
// from four bilinear samples (each the mean of 2x2 texels).
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

uniform vec2 sampleOffset;  // a quarter of a block, in texture coordinates

void main() {
    vec3 mean = 0.25 * (texture(inputImageTexture, textureCoordinate + vec2(-sampleOffset.x, -sampleOffset.y)).rgb
                        + texture(inputImageTexture, textureCoordinate + vec2(sampleOffset.x, -sampleOffset.y)).rgb
                        + texture(inputImageTexture, textureCoordinate + vec2(-sampleOffset.x, sampleOffset.y)).rgb
                        + texture(inputImageTexture, textureCoordinate + vec2(sampleOffset.x, sampleOffset.y)).rgb);
    fragColor = vec4(mean, 1.0);
}
