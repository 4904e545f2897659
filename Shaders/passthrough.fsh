#version 300 es
// Copies (and, with another output size, scales) the input.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

void main() {
    fragColor = texture(inputImageTexture, textureCoordinate);
}
