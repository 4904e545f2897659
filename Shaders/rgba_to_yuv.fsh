#version 300 es
// One plane of Y'CbCr from an RGBA picture, four 8-bit samples per output RGBA texel (so a plane
// row of N samples is N/4 texels, read back as bytes). Chroma is filtered at its siting:
// MPEG-2 "left" takes [1 2 1]/4 across (co-sited with even columns) and [1 1]/2 down; JPEG
// "center" takes the 2x2 block. Pixels are fetched exactly and filtered in float.
// The plane and the subsampling are chosen at compile time (ShaderVariant), so no pixel pays for
// the paths it does not take.
precision highp float;
precision highp int;

#ifndef PLANE_KIND
#define PLANE_KIND 0          // 0 Y', 1 Cb, 2 Cr, 3 interleaved Cb Cr (two pairs per texel)
#endif
#ifndef CHROMA_DIVISOR_X
#define CHROMA_DIVISOR_X 2    // chroma subsampling across: 1 or 2
#endif
#ifndef CHROMA_DIVISOR_Y
#define CHROMA_DIVISOR_Y 2    // chroma subsampling down: 1 or 2
#endif
#ifndef CENTRED_CHROMA
#define CENTRED_CHROMA 0      // 1: chroma centred in its block (JPEG); 0: co-sited left (MPEG-2)
#endif

out vec4 fragColor;
uniform sampler2D inputImageTexture;
uniform vec2 pictureSize;    // RGBA input size in pixels
uniform int swapChroma;      // interleaved pairs as Cr Cb (NV21)
uniform mat3 colorMatrix;    // R'G'B' -> samples
uniform vec3 colorOffset;

vec3 rgbAt(int x, int y) {
    ivec2 last = ivec2(pictureSize) - 1;
    // Snapped to exact 8-bit values: some drivers (llvmpipe) convert unorm8 to float up to 0.1
    // level off, and divide approximately (even by constants), so this multiplies by 1/255.
    return round(texelFetch(inputImageTexture, clamp(ivec2(x, y), ivec2(0), last), 0).rgb * 255.0)
        * 0.003921568627450980;
}

// The R'G'B' of row y under the horizontal chroma filter of sample column x0.
vec3 filteredRow(int x0, int y) {
#if CHROMA_DIVISOR_X == 1
    return rgbAt(x0, y);
#elif CENTRED_CHROMA == 1
    return 0.5 * (rgbAt(x0, y) + rgbAt(x0 + 1, y));
#else
    return 0.25 * rgbAt(x0 - 1, y) + 0.5 * rgbAt(x0, y) + 0.25 * rgbAt(x0 + 1, y);
#endif
}

// Y'CbCr of chroma sample `index` of the chroma plane.
vec3 chromaSample(ivec2 index) {
    ivec2 origin = index * ivec2(CHROMA_DIVISOR_X, CHROMA_DIVISOR_Y);
    vec3 rgb = filteredRow(origin.x, origin.y);
#if CHROMA_DIVISOR_Y == 2
    rgb = 0.5 * (rgb + filteredRow(origin.x, origin.y + 1));
#endif
    return colorMatrix * rgb + colorOffset;
}

void main() {
    ivec2 texel = ivec2(gl_FragCoord.xy);
    vec4 result;
#if PLANE_KIND == 0
    for (int k = 0; k < 4; k++) {
        result[k] = (colorMatrix * rgbAt(texel.x * 4 + k, texel.y) + colorOffset).x;
    }
#elif PLANE_KIND == 3
    vec3 first = chromaSample(ivec2(texel.x * 2, texel.y));
    vec3 second = chromaSample(ivec2(texel.x * 2 + 1, texel.y));
    result = swapChroma == 1 ? vec4(first.zy, second.zy) : vec4(first.yz, second.yz);
#else
    for (int k = 0; k < 4; k++) {
        vec3 yuv = chromaSample(ivec2(texel.x * 4 + k, texel.y));
        result[k] = PLANE_KIND == 1 ? yuv.y : yuv.z;
    }
#endif
    fragColor = clamp(result, 0.0, 1.0);
}
