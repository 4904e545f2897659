#version 300 es
// Affine transform: each output pixel position (in pixels, origin at the top-left corner) maps
// through `inverseTransform` to an input pixel position, sampled bilinearly; positions outside the
// input show `backgroundColor`.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

uniform mat3 inverseTransform;
uniform vec2 inputSize;
uniform vec2 outputSize;
uniform vec4 backgroundColor;

void main() {
    vec2 position = (inverseTransform * vec3(textureCoordinate * outputSize, 1.0)).xy;
    if (any(lessThan(position, vec2(0.0))) || any(greaterThan(position, inputSize))) {
        fragColor = backgroundColor;
    } else {
        fragColor = texture(inputImageTexture, position / inputSize);
    }
}
