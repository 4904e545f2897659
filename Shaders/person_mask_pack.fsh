#version 300 es
// The first step of refining a person mask: the frame shrunk to the mask's size (four bilinear
// taps a quarter of an output texel from the centre) in rgb, beside the mask's own value in a, so
// the refinement reads both with one fetch a texel.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;   // the frame
uniform sampler2D inputImageTexture2;  // the mask (its size is the output's), person in .r
uniform vec2 outputTexel;              // 1 / the output size
out vec4 fragColor;

void main() {
    vec2 step = outputTexel * 0.25;
    vec3 colour = 0.25 * (texture(inputImageTexture, textureCoordinate + vec2(-step.x, -step.y)).rgb
                        + texture(inputImageTexture, textureCoordinate + vec2(step.x, -step.y)).rgb
                        + texture(inputImageTexture, textureCoordinate + vec2(-step.x, step.y)).rgb
                        + texture(inputImageTexture, textureCoordinate + vec2(step.x, step.y)).rgb);
    fragColor = vec4(colour, texture(inputImageTexture2, textureCoordinate).r);
}
