#version 300 es
// Sobel edge magnitude of the BT.709 luma: sqrt(gx² + gy²) * strength, as gray; alpha is kept.
// Exact texel reads (texelFetch, borders repeated).
precision highp float;
precision highp int;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

uniform float strength;

float luma(ivec2 position, ivec2 last) {
    return dot(texelFetch(inputImageTexture, clamp(position, ivec2(0), last), 0).rgb, vec3(0.2126, 0.7152, 0.0722));
}

void main() {
    ivec2 last = textureSize(inputImageTexture, 0) - 1;
    ivec2 p = ivec2(gl_FragCoord.xy);
    float topLeft = luma(p + ivec2(-1, -1), last), top = luma(p + ivec2(0, -1), last), topRight = luma(p + ivec2(1, -1), last);
    float left = luma(p + ivec2(-1, 0), last), right = luma(p + ivec2(1, 0), last);
    float bottomLeft = luma(p + ivec2(-1, 1), last), bottom = luma(p + ivec2(0, 1), last), bottomRight = luma(p + ivec2(1, 1), last);
    float gx = (topRight + 2.0 * right + bottomRight) - (topLeft + 2.0 * left + bottomLeft);
    float gy = (bottomLeft + 2.0 * bottom + bottomRight) - (topLeft + 2.0 * top + topRight);
    float magnitude = length(vec2(gx, gy)) * strength;
    fragColor = vec4(vec3(magnitude), texelFetch(inputImageTexture, p, 0).a);
}
