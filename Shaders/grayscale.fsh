#version 300 es
// Luma with the BT.709 weights on the (non-linear) RGB values; alpha is kept.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

const vec3 bt709Luma = vec3(0.2126, 0.7152, 0.0722);

void main() {
    vec4 color = texture(inputImageTexture, textureCoordinate);
    fragColor = vec4(vec3(dot(color.rgb, bt709Luma)), color.a);
}
