#version 300 es
// Sobel edge magnitude of the BT.709 luma: sqrt(gx² + gy²) * strength, as gray; alpha is kept.
// Exact texel reads (texelFetch, borders repeated).
// The filter is `filterStencil3x3`, a function of the pixel's 3x3 texels: a pack that runs this
// pass in its own (RecipePackShader) reads a row's neighbourhoods once for all its pixels.
precision highp float;
precision highp int;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

uniform float strength;

float luma(vec4 texel) {
    return dot(texel.rgb, vec3(0.2126, 0.7152, 0.0722));
}

// texels[3 * (dy + 1) + dx + 1] is the texel at (dx, dy) from the pixel, edges repeated.
vec4 filterStencil3x3(vec4 texels[9]) {
    float topLeft = luma(texels[0]), top = luma(texels[1]), topRight = luma(texels[2]);
    float left = luma(texels[3]), right = luma(texels[5]);
    float bottomLeft = luma(texels[6]), bottom = luma(texels[7]), bottomRight = luma(texels[8]);
    float gx = (topRight + 2.0 * right + bottomRight) - (topLeft + 2.0 * left + bottomLeft);
    float gy = (bottomLeft + 2.0 * bottom + bottomRight) - (topLeft + 2.0 * top + topRight);
    float magnitude = length(vec2(gx, gy)) * strength;
    return vec4(vec3(magnitude), texels[4].a);
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
