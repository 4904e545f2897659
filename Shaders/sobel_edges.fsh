#version 300 es
// Sobel edge magnitude of the BT.709 luma: sqrt(gx² + gy²) * strength, as gray; alpha is kept.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

uniform vec2 texelSize;
uniform float strength;

float luma(vec2 offset) {
    return dot(texture(inputImageTexture, textureCoordinate + offset * texelSize).rgb,
               vec3(0.2126, 0.7152, 0.0722));
}

void main() {
    float topLeft = luma(vec2(-1.0, -1.0)), top = luma(vec2(0.0, -1.0)), topRight = luma(vec2(1.0, -1.0));
    float left = luma(vec2(-1.0, 0.0)), right = luma(vec2(1.0, 0.0));
    float bottomLeft = luma(vec2(-1.0, 1.0)), bottom = luma(vec2(0.0, 1.0)), bottomRight = luma(vec2(1.0, 1.0));
    float gx = (topRight + 2.0 * right + bottomRight) - (topLeft + 2.0 * left + bottomLeft);
    float gy = (bottomLeft + 2.0 * bottom + bottomRight) - (topLeft + 2.0 * top + topRight);
    float magnitude = length(vec2(gx, gy)) * strength;
    fragColor = vec4(vec3(magnitude), texture(inputImageTexture, textureCoordinate).a);
}
