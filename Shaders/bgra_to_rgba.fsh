#version 300 es
// BGRA bytes uploaded as RGBA: swap red and blue.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

void main() {
    fragColor = texture(inputImageTexture, textureCoordinate).bgra;
}
