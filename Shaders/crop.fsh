#version 300 es
// Copies a rectangle of the input: output texture coordinates map to origin + coordinate * extent
// in the input's texture coordinates.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

uniform vec2 origin;
uniform vec2 extent;

void main() {
    fragColor = texture(inputImageTexture, origin + textureCoordinate * extent);
}
