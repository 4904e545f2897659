#version 300 es
// One 8-bit gray channel (an R8 texture) to opaque RGBA.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

void main() {
    fragColor = vec4(vec3(texture(inputImageTexture, textureCoordinate).r), 1.0);
}
