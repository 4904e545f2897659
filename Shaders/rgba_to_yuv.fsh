#version 300 es
// One plane of Y'CbCr from an RGBA picture, four 8-bit samples per output RGBA texel (so a plane
// row of N samples is N/4 texels, read back as bytes). Chroma is filtered at its siting: a
// direction where chroma is co-sited with even luma samples takes [1 2 1]/4 around it, one where
// it sits between two takes [1 1]/2. MPEG-2 "left" is co-sited across and between down; JPEG
// "center" is between in both; DV PAL "top left" is co-sited in both. Pixels are fetched exactly
// and filtered in float.
// The matched filter (CHROMA_FILTER 1) follows that average with [-1 8 -1]/6 across neighbouring
// chroma samples, which undoes the [1 6 1]/8 blur that bilinear upsampling (yuv_to_rgba.fsh) and
// the average make together: Y'CbCr written back after a trip through RGBA keeps its chroma
// (6 or 7 taps per direction instead of 2 or 3).
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
#ifndef CHROMA_FILTER
#define CHROMA_FILTER 0       // 0: average around the site; 1: matched to bilinear upsampling
#endif
#ifndef CHROMA_SITING
#define CHROMA_SITING 0       // 0: co-sited left (MPEG-2); 1: centred (JPEG); 2: co-sited top left (DV PAL)
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

// The chroma filter's taps per direction: weights, and the offset of the first from the block's
// first luma sample. Not subsampled: one tap. Co-sited with the even sample: [1 2 1]/4 around it
// (matched: [-1 -2 7 16 7 -2 -1]/24). Between two samples: [1 1]/2 (matched: [-1 -1 8 8 -1 -1]/12).
#define ONE_TAP float[1](1.0)
#if CHROMA_FILTER == 1
#define COSITED_TAPS float[7](-1.0 / 24.0, -2.0 / 24.0, 7.0 / 24.0, 16.0 / 24.0, 7.0 / 24.0, -2.0 / 24.0, -1.0 / 24.0)
#define COSITED_FIRST -3
#define BETWEEN_TAPS float[6](-1.0 / 12.0, -1.0 / 12.0, 8.0 / 12.0, 8.0 / 12.0, -1.0 / 12.0, -1.0 / 12.0)
#define BETWEEN_FIRST -2
#else
#define COSITED_TAPS float[3](0.25, 0.5, 0.25)
#define COSITED_FIRST -1
#define BETWEEN_TAPS float[2](0.5, 0.5)
#define BETWEEN_FIRST 0
#endif

#if CHROMA_DIVISOR_X == 1
const float xTaps[] = ONE_TAP;
const int xFirst = 0;
#elif CHROMA_SITING == 1
const float xTaps[] = BETWEEN_TAPS;
const int xFirst = BETWEEN_FIRST;
#else
const float xTaps[] = COSITED_TAPS;
const int xFirst = COSITED_FIRST;
#endif

#if CHROMA_DIVISOR_Y == 1
const float yTaps[] = ONE_TAP;
const int yFirst = 0;
#elif CHROMA_SITING == 2
const float yTaps[] = COSITED_TAPS;
const int yFirst = COSITED_FIRST;
#else
const float yTaps[] = BETWEEN_TAPS;
const int yFirst = BETWEEN_FIRST;
#endif

// Y'CbCr of chroma sample `index` of the chroma plane.
vec3 chromaSample(ivec2 index) {
    ivec2 origin = index * ivec2(CHROMA_DIVISOR_X, CHROMA_DIVISOR_Y) + ivec2(xFirst, yFirst);
    vec3 rgb = vec3(0.0);
    for (int j = 0; j < yTaps.length(); j++) {
        vec3 row = vec3(0.0);
        for (int i = 0; i < xTaps.length(); i++) {
            row += xTaps[i] * rgbAt(origin.x + i, origin.y + j);
        }
        rgb += yTaps[j] * row;
    }
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
