#version 300 es
// Unsharp mask: colour + amount * (colour - blurred), where `blurred` is the 3x3 binomial blur
// [1 2 1] x [1 2 1] / 16 with repeated edges. Texels are read exactly (texelFetch, snapped to the
// 8-bit level) because `amount` multiplies any read error. Alpha is kept.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

uniform float amount;

vec4 texel(ivec2 position, ivec2 size) {
    vec4 value = texelFetch(inputImageTexture, clamp(position, ivec2(0), size - 1), 0);
    return floor(value * 255.0 + 0.5) / 255.0;
}

void main() {
    ivec2 size = textureSize(inputImageTexture, 0);
    ivec2 position = ivec2(gl_FragCoord.xy);
    vec4 color = texel(position, size);
    vec3 blurred = vec3(0.0);
    for (int y = -1; y <= 1; ++y) {
        for (int x = -1; x <= 1; ++x) {
            float weight = float((2 - abs(x)) * (2 - abs(y))) / 16.0;
            blurred += weight * texel(position + ivec2(x, y), size).rgb;
        }
    }
    fragColor = vec4(color.rgb + amount * (color.rgb - blurred), color.a);
}
