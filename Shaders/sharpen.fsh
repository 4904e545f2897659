#version 300 es
// Unsharp mask: colour + amount * (colour - blurred), where `blurred` is the 3x3 binomial blur
// [1 2 1] x [1 2 1] / 16 with repeated edges. Texels are read exactly (texelFetch): `amount`
// multiplies any read error, and a bilinear read would add one. Alpha is kept.
// The filter is `filterStencil3x3`, a function of the pixel's 3x3 texels: a pack that runs this
// pass in its own (RecipePackShader) reads a row's neighbourhoods once for all its pixels.
precision highp float;
precision highp int;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

uniform float amount;

// texels[3 * (dy + 1) + dx + 1] is the texel at (dx, dy) from the pixel, edges repeated.
vec4 filterStencil3x3(vec4 texels[9]) {
    vec3 blurred = vec3(0.0);
    for (int y = -1; y <= 1; ++y) {
        for (int x = -1; x <= 1; ++x) {
            float weight = float((2 - abs(x)) * (2 - abs(y))) / 16.0;
            blurred += weight * texels[3 * (y + 1) + x + 1].rgb;
        }
    }
    vec4 color = texels[4];
    return vec4(color.rgb + amount * (color.rgb - blurred), color.a);
}

void main() {
    ivec2 last = textureSize(inputImageTexture, 0) - 1;
    ivec2 position = ivec2(gl_FragCoord.xy);
    vec4 texels[9];
    for (int y = -1; y <= 1; ++y) {
        for (int x = -1; x <= 1; ++x) {
            texels[3 * (y + 1) + x + 1] = texelFetch(inputImageTexture, clamp(position + ivec2(x, y), ivec2(0), last), 0);
        }
    }
    fragColor = filterStencil3x3(texels);
}
