#version 300 es
// One plane of Y'CbCr from an RGBA picture, four 8-bit samples per output RGBA texel (so a plane
// row of N samples is N/4 texels, read back as bytes). Chroma is filtered at its siting: a
// direction where chroma is co-sited with even luma samples takes [1 2 1]/4 around it, one where
// it sits between two takes [1 1]/2. MPEG-2 "left" is co-sited across and between down; JPEG
// "center" is between in both; DV PAL "top left" is co-sited in both. Pixels are fetched exactly
// and filtered in float.
// The matched filter (CHROMA_FILTER 1) follows that average with [-1 8 -1]/6 across neighbouring
// chroma samples, which undoes the [1 6 1]/8 blur that bilinear upsampling (yuv_to_rgba.fsh) and
// the average make together: Y'CbCr written back after a trip through RGBA keeps its chroma. It
// runs as two passes (RenderContext.packPlanes), so it costs about what the average costs:
//   1. PLANE_KIND 5 writes the average (exact fetches, 2 to 6 a site) at every chroma site as
//      Cb Cr without their offset (around 0, where half floats are finest), two sites a texel, with a border of one site all round (the border sites average
//      clamped pixels, as a one-pass filter would), into a half-float target;
//   2. the chroma planes read that target (inputImageTexture) and sharpen it by [-1 8 -1]/6 in
//      each subsampled direction (the weights sum to 1, so sharpening Cb Cr is sharpening R'G'B'
//      and converting); the four samples of a texel share their reads: 3 x 3 reads for 4:2:0,
//      2.25 a sample, instead of 36 to 49 reads of the picture a sample.
// The plane and the subsampling are chosen at compile time (ShaderVariant), so no pixel pays for
// the paths it does not take.
// With FUSED_PACK 1 this file is the last part of a generated shader (FusedConversionShader): the
// pixels come from `fusedRGB` (Y'CbCr planes converted and coloured in the same pass), not from
// an RGBA picture.
precision highp float;
precision highp int;

#ifndef PLANE_KIND
#define PLANE_KIND 0          // 0 Y', 1 Cb, 2 Cr, 3 interleaved Cb Cr (two pairs per texel),
#endif                        // 4 both 4:2:0 chroma planes below Y' in one frame-sized target,
                              // 5 the averaged R'G'B' at each chroma site (matched filter, pass 1),
                              // 6 packed 4:2:2: two pixels a texel, Y'0 Cb Y'1 Cr (YUYV) or
                              //   Cb Y'0 Cr Y'1 (UYVY, PACKED_UYVY 1)
                              // 7 RGBA64: R G of a pixel in texel 2x, B A in texel 2x + 1
                              // 8 the averages of PLANE_KIND 5 sharpened down, in the same layout
                              //   (10-bit chroma: the long filter's vertical half, run once a site)
#ifndef CHROMA_DIVISOR_X
#define CHROMA_DIVISOR_X 2    // chroma subsampling across: 1 or 2
#endif
#ifndef CHROMA_DIVISOR_Y
#define CHROMA_DIVISOR_Y 2    // chroma subsampling down: 1 or 2
#endif
#ifndef CHROMA_FILTER
#define CHROMA_FILTER 0       // 0: average around the site; 1: matched to bilinear upsampling (pass 2)
#endif
#ifndef CHROMA_SITING
#define CHROMA_SITING 0       // 0: co-sited left (MPEG-2); 1: centred (JPEG); 2: co-sited top left (DV PAL)
#endif
#ifndef FUSED_PACK
#define FUSED_PACK 0
#endif
#ifndef PACKED_UYVY
#define PACKED_UYVY 0
#endif
#ifndef SAMPLE_BYTES
#define SAMPLE_BYTES 1        // 2: 10- or 16-bit samples written as little-endian byte pairs, two a texel
#endif                        //    (PLANE_KIND 3: one Cb Cr pair a texel; 7: half an RGBA64 pixel)
#ifndef VERTICAL_SHARPENED
#define VERTICAL_SHARPENED 0  // 1: inputImageTexture holds the averages already sharpened down (PLANE_KIND 8)
#endif
#ifndef PICTURE_SNAP
#define PICTURE_SNAP 1        // 1: the picture holds 8-bit values (RGBA8), snapped exactly; 0: half floats
#endif
#ifndef BILINEAR_AVERAGE
#define BILINEAR_AVERAGE 0    // 1: the average filter from bilinear reads (input linearly filtered, clamped)
#endif

out vec4 fragColor;
#if FUSED_PACK == 0
uniform sampler2D inputImageTexture;
#endif
#if PLANE_KIND == 6 && CHROMA_FILTER == 1 && FUSED_PACK == 0
// Packed 4:2:2 with the matched filter reads Y' from the picture here; inputImageTexture holds
// the chroma averages of the first pass.
uniform sampler2D inputImageTexture2;
#define PICTURE_TEXTURE inputImageTexture2
#else
#define PICTURE_TEXTURE inputImageTexture
#endif
uniform vec2 pictureSize;    // RGBA input size in pixels
uniform int swapOutputChroma;  // interleaved pairs as Cr Cb (NV21); PLANE_KIND 4: Cr plane first (YV12)
uniform mat3 yuvMatrix;      // R'G'B' -> samples
uniform vec3 yuvOffset;
uniform vec2 inversePictureSize;  // 1 / pictureSize, computed exactly on the CPU
uniform float largestSample;  // SAMPLE_BYTES 2: the largest code (1023 for 10 bits, 65535 for 16)
uniform float storedScale;    // SAMPLE_BYTES 2: what a code is multiplied by in its word (64 for P010, else 1)

// A normalized sample as the two bytes (low, high) of its little-endian word, as unorm8 values.
// 1/256 is exact, so the split is exact. Each byte is written a quarter above its value: k / 255
// is not exact in float, and a driver that truncates when it stores unorm8 (llvmpipe does for
// some k) would write k - 1; a quarter up lands on k whether it truncates or rounds.
vec2 wordBytes(float value) {
    float word = clamp(round(value * largestSample), 0.0, largestSample) * storedScale;
    float high = floor(word * 0.00390625);
    return (vec2(word - 256.0 * high, high) + 0.25) * 0.003921568627450980;
}

vec3 rgbAt(int x, int y) {
    ivec2 last = ivec2(pictureSize) - 1;
#if FUSED_PACK == 1
    return fusedRGB(clamp(ivec2(x, y), ivec2(0), last));
#elif PICTURE_SNAP == 0
    return texelFetch(PICTURE_TEXTURE, clamp(ivec2(x, y), ivec2(0), last), 0).rgb;
#else
    // Snapped to exact 8-bit values: some drivers (llvmpipe) convert unorm8 to float up to 0.1
    // level off, and divide approximately (even by constants), so this multiplies by 1/255.
    return round(texelFetch(PICTURE_TEXTURE, clamp(ivec2(x, y), ivec2(0), last), 0).rgb * 255.0)
        * 0.003921568627450980;
#endif
}

// The average across, around luma column x of row y: [1 2 1]/4 co-sited, [1 1]/2 between.
vec3 across(int x, int y) {
#if CHROMA_DIVISOR_X == 1
    return rgbAt(x, y);
#elif CHROMA_SITING == 1
    return 0.5 * (rgbAt(x, y) + rgbAt(x + 1, y));
#else
    return 0.25 * (rgbAt(x - 1, y) + rgbAt(x + 1, y)) + 0.5 * rgbAt(x, y);
#endif
}

// The average filter from bilinear reads (BILINEAR_AVERAGE 1, CHROMA_FILTER 0): a read at the edge
// between two pixels is their mean ([1 1]/2), and the mean of reads at both edges of a pixel is
// [1 2 1]/4 around it; clamping to the edge repeats the border pixels as rgbAt does. One to four
// reads per chroma sample instead of two to nine; the texture unit rounds each read to 8 bits
// (under half a level; chroma rows sum to zero, so a common rounding cancels). The matched
// filter's first pass fetches exactly: its second pass would amplify that rounding.
#if CHROMA_DIVISOR_X == 2 && CHROMA_SITING != 1
#define ACROSS_READS 2        // co-sited across: reads at the pixel's left and right edges
#else
#define ACROSS_READS 1        // between two pixels (or not subsampled): one read
#endif
#if CHROMA_DIVISOR_Y == 2 && CHROMA_SITING == 2
#define DOWN_READS 2
#else
#define DOWN_READS 1
#endif

vec3 readAt(float x, float y) {
    return textureLod(inputImageTexture, vec2(x, y) * inversePictureSize, 0.0).rgb;
}

vec3 bilinearAverage(int x, int y) {
    float fx = float(x), fy = float(y);
#if ACROSS_READS == 2
    vec2 across = vec2(fx, fx + 1.0);
#elif CHROMA_DIVISOR_X == 2
    vec2 across = vec2(fx + 1.0);
#else
    vec2 across = vec2(fx + 0.5);
#endif
#if DOWN_READS == 2
    vec2 down = vec2(fy, fy + 1.0);
#elif CHROMA_DIVISOR_Y == 2
    vec2 down = vec2(fy + 1.0);
#else
    vec2 down = vec2(fy + 0.5);
#endif
#if ACROSS_READS == 2 && DOWN_READS == 2
    return 0.25 * (readAt(across.x, down.x) + readAt(across.y, down.x) + readAt(across.x, down.y) + readAt(across.y, down.y));
#elif ACROSS_READS == 2
    return 0.5 * (readAt(across.x, down.x) + readAt(across.y, down.x));
#elif DOWN_READS == 2
    return 0.5 * (readAt(across.x, down.x) + readAt(across.x, down.y));
#else
    return readAt(across.x, down.x);
#endif
}

// The R'G'B' average around chroma site `index`: the rows averaged across, then down.
vec3 averageAt(ivec2 index) {
    int x = index.x * CHROMA_DIVISOR_X;
    int y = index.y * CHROMA_DIVISOR_Y;
#if BILINEAR_AVERAGE == 1 && CHROMA_FILTER == 0
    return bilinearAverage(x, y);
#elif CHROMA_DIVISOR_Y == 1
    return across(x, y);
#elif CHROMA_SITING != 2
    return 0.5 * (across(x, y) + across(x, y + 1));
#else
    return 0.25 * (across(x, y - 1) + across(x, y + 1)) + 0.5 * across(x, y);
#endif
}

#if CHROMA_FILTER == 1 && PLANE_KIND != 5 && FUSED_PACK == 0
// The matched filter's second pass: inputImageTexture holds the first pass's averages as Cb Cr,
// two sites a texel (texel x holds bordered sites 2x and 2x + 1, i.e. sites 2x - 1 and 2x).
const float sixth = 0.16666666666666666;

// The averages of bordered sites 2 * texel.x and the next, row texel.y (clamped at the edges).
vec4 averagedPair(ivec2 texel) {
    return texelFetch(inputImageTexture, clamp(texel, ivec2(0), textureSize(inputImageTexture, 0) - 1), 0);
}

#if SAMPLE_BYTES == 2
// 10- and 16-bit samples take eleven taps: the inverse of the [1 6 1]/8 that upsampling and
// averaging make (sqrt(2) r^|n|, r = 2 sqrt(2) - 3), cut to eleven taps and summing to 1: within
// 0.012 % at every frequency, where three taps are 17 % off at the highest, so a round trip keeps
// even hard-edged 10-bit chroma (colour bars) above 70 dB. Sites beyond the border are clamped.
#define SITE_REACH 5
const float taps[6] = float[6](1.414300661, -0.242655631, 0.041633124, -0.007143115, 0.001225565, -0.000210274);
#else
#define SITE_REACH 1
#endif

// A pair sharpened down by the matched filter, where chroma is subsampled down.
vec4 sharpenedDown(ivec2 texel) {
#if VERTICAL_SHARPENED == 1
    return averagedPair(texel);
#elif CHROMA_DIVISOR_Y == 2 && SITE_REACH > 1
    vec4 sum = taps[0] * averagedPair(texel);
    for (int d = 1; d <= SITE_REACH; d++) {
        sum += taps[d] * (averagedPair(texel - ivec2(0, d)) + averagedPair(texel + ivec2(0, d)));
    }
    return sum;
#elif CHROMA_DIVISOR_Y == 2
    return (8.0 * averagedPair(texel) - averagedPair(texel - ivec2(0, 1)) - averagedPair(texel + ivec2(0, 1))) * sixth;
#else
    return averagedPair(texel);
#endif
}

// Y'CbCr (Y' unused) of `count` neighbouring chroma samples of a row from `first` on (`first`
// even, `count` 2 or 4), sharing their reads: the sites first - SITE_REACH ... first + count - 1
// + SITE_REACH, sharpened down once each (two a read), then across.
void chromaSamples(ivec2 first, int count, out vec3 yuv[4]) {
    vec2 site[4 * SITE_REACH + 4];
    // site[i] is site first - 2 * SITE_REACH + 1 + i (texel first / 2 - SITE_REACH + 1 holds
    // bordered sites first - 2 * SITE_REACH + 2 and the next, i.e. sites first - 2 * SITE_REACH + 1 on).
    for (int pair = 0; pair < count / 2 + 2 * SITE_REACH - 1; pair++) {
        vec4 both = sharpenedDown(ivec2(first.x / 2 - SITE_REACH + 1 + pair, first.y + 1));
        site[2 * pair] = both.xy;
        site[2 * pair + 1] = both.zw;
    }
    for (int k = 0; k < count; k++) {
        int centre = k + 2 * SITE_REACH - 1;
#if CHROMA_DIVISOR_X == 2 && SITE_REACH > 1
        vec2 sharpened = taps[0] * site[centre];
        for (int d = 1; d <= SITE_REACH; d++) {
            sharpened += taps[d] * (site[centre - d] + site[centre + d]);
        }
        yuv[k] = vec3(0.0, sharpened) + yuvOffset;
#elif CHROMA_DIVISOR_X == 2
        yuv[k] = vec3(0.0, (8.0 * site[centre] - site[centre - 1] - site[centre + 1]) * sixth) + yuvOffset;
#else
        yuv[k] = vec3(0.0, site[centre]) + yuvOffset;
#endif
    }
}
#else
// Y'CbCr of `count` neighbouring chroma samples of a row from `first` on (count <= 4).
void chromaSamples(ivec2 first, int count, out vec3 yuv[4]) {
    for (int k = 0; k < count; k++) {
        yuv[k] = yuvMatrix * averageAt(first + ivec2(k, 0)) + yuvOffset;
    }
}
#endif

void main() {
    ivec2 texel = ivec2(gl_FragCoord.xy);
    vec4 result;
#if PLANE_KIND == 0 && FUSED_PACK == 1 && defined(FUSED_CHROMA_COLUMNS)
    vec4 colors[4];  // the four pixels converted together, sharing their chroma reads
    pictureColorsInRow(ivec2(texel.x * 4, texel.y), colors);
    for (int k = 0; k < 4; k++) {
        result[k] = (yuvMatrix * fusedColor(colors[k]) + yuvOffset).x;
    }
#elif PLANE_KIND == 0 && defined(FUSED_ROW_OF_FOUR)
    vec3 four[4];  // a filter's 3x3 stencil, its neighbourhoods read once (RecipePackShader)
    fusedRowOfFour(ivec2(texel.x * 4, texel.y), four);
    for (int k = 0; k < 4; k++) {
        result[k] = (yuvMatrix * four[k] + yuvOffset).x;
    }
#elif PLANE_KIND == 0 && SAMPLE_BYTES == 2
    result = vec4(wordBytes((yuvMatrix * rgbAt(texel.x * 2, texel.y) + yuvOffset).x),
                  wordBytes((yuvMatrix * rgbAt(texel.x * 2 + 1, texel.y) + yuvOffset).x));
#elif PLANE_KIND == 0
    for (int k = 0; k < 4; k++) {
        result[k] = (yuvMatrix * rgbAt(texel.x * 4 + k, texel.y) + yuvOffset).x;
    }
#elif PLANE_KIND == 7
    // RGBA64: texel x holds half of pixel x / 2, red and green or blue and alpha.
    vec4 color = texelFetch(PICTURE_TEXTURE, ivec2(texel.x / 2, texel.y), 0);
    vec2 pair = texel.x % 2 == 0 ? color.rg : color.ba;
    result = vec4(wordBytes(pair.x), wordBytes(pair.y));
#elif PLANE_KIND == 4
    // The target holds a whole 4:2:0 frame as bytes (Y' rows, then the first chroma plane, then
    // the second); this draw covers the chroma rows from texel row H: each texel row holds two
    // chroma rows of W/2 samples (W/8 texels each), the first plane's H/4 texel rows first.
    int height = int(pictureSize.y), rowTexels = int(pictureSize.x) / 8;
    int row = texel.y - height, planeRows = height / 4;
    bool second = row >= planeRows;
    int chromaRow = 2 * (second ? row - planeRows : row) + (texel.x >= rowTexels ? 1 : 0);
    int column = 4 * (texel.x >= rowTexels ? texel.x - rowTexels : texel.x);
    bool cr = second != (swapOutputChroma == 1);
    vec3 yuv[4];
    chromaSamples(ivec2(column, chromaRow), 4, yuv);
    for (int k = 0; k < 4; k++) {
        result[k] = cr ? yuv[k].z : yuv[k].y;
    }
#elif PLANE_KIND == 8
    fragColor = sharpenedDown(texel);  // signed: not clamped
    return;
#elif PLANE_KIND == 5
    // Bordered sites 2 * texel.x and the next: sites 2 * texel.x - 1 and 2 * texel.x of row texel.y - 1.
    ivec2 site = ivec2(2 * texel.x - 1, texel.y - 1);
    // Without the offset: around 0, where half floats are finest (the second pass adds it back).
    vec3 left = yuvMatrix * averageAt(site);
    vec3 right = yuvMatrix * averageAt(site + ivec2(1, 0));
    result = vec4(left.yz, right.yz);
    fragColor = result;  // signed: not clamped
    return;
#elif PLANE_KIND == 6
    // Texel x holds pixels 2x and 2x + 1 and their chroma sample x (co-sited or between, as sited).
    vec3 yuv[4];
    chromaSamples(ivec2(texel.x - texel.x % 2, texel.y), 2, yuv);
    vec2 chroma = yuv[texel.x % 2].yz;
    float first = (yuvMatrix * rgbAt(2 * texel.x, texel.y) + yuvOffset).x;
    float second = (yuvMatrix * rgbAt(2 * texel.x + 1, texel.y) + yuvOffset).x;
#if PACKED_UYVY == 1
    result = vec4(chroma.x, first, chroma.y, second);
#else
    result = vec4(first, chroma.x, second, chroma.y);
#endif
#elif PLANE_KIND == 3 && SAMPLE_BYTES == 2
    // One Cb Cr pair a texel, as two words.
    vec3 yuv[4];
    chromaSamples(ivec2(texel.x - texel.x % 2, texel.y), 2, yuv);
    vec2 chroma = swapOutputChroma == 1 ? yuv[texel.x % 2].zy : yuv[texel.x % 2].yz;
    result = vec4(wordBytes(chroma.x), wordBytes(chroma.y));
#elif PLANE_KIND == 3
    vec3 yuv[4];
    chromaSamples(ivec2(texel.x * 2, texel.y), 2, yuv);
    result = swapOutputChroma == 1 ? vec4(yuv[0].zy, yuv[1].zy) : vec4(yuv[0].yz, yuv[1].yz);
#elif SAMPLE_BYTES == 2
    vec3 yuv[4];
    chromaSamples(ivec2(texel.x * 2, texel.y), 2, yuv);
    result = PLANE_KIND == 1 ? vec4(wordBytes(yuv[0].y), wordBytes(yuv[1].y))
                             : vec4(wordBytes(yuv[0].z), wordBytes(yuv[1].z));
#else
    vec3 yuv[4];
    chromaSamples(ivec2(texel.x * 4, texel.y), 4, yuv);
    for (int k = 0; k < 4; k++) {
        result[k] = PLANE_KIND == 1 ? yuv[k].y : yuv[k].z;
    }
#endif
    fragColor = clamp(result, 0.0, 1.0);
}
