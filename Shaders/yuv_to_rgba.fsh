#version 300 es
// CPU planes (uploaded as textures) to RGBA in one pass: fetch Y'CbCr (or RGB) for the output
// pixel, interpolating subsampled chroma at its siting, then apply the colour matrix and range.
// Samples are fetched exactly (texelFetch) and chroma is interpolated here in float: texture
// filtering units round weights and results to 8 bits, and the matrix amplifies a chroma
// rounding error almost twofold. The pass maps pixels 1:1 (turned, never scaled).
// With FUSED_PACK 1 this file is the first part of a generated shader (FusedConversionShader):
// `pictureColor` converts a pixel for the colour pieces and the pack that follow, and no main.
precision highp float;
precision highp int;

#ifndef FUSED_PACK
#define FUSED_PACK 0
#endif
in vec2 textureCoordinate;
#if FUSED_PACK == 0
out vec4 fragColor;
#endif

uniform sampler2D inputImageTexture;   // plane 0
uniform sampler2D inputImageTexture2;  // plane 1 (Cb, or interleaved CbCr)
uniform sampler2D inputImageTexture3;  // plane 2 (Cr)

// Chosen at compile time (ShaderVariant): 0 planar Y/Cb/Cr, 1 Y + interleaved CbCr,
// 2 packed 4:2:2, 3 gray, 4 packed RGB24 (as R8), 5 RGBA.
#ifndef PLANE_LAYOUT
#define PLANE_LAYOUT 0
#endif
// 1 (8-bit planar sources, PLANE_LAYOUT 1): the chroma texture is RGBA8, texel x holding the
// Cb Cr pairs of samples x and x + 1 (the last repeated), so that the two samples of a row that
// interpolation needs come in one read (`uploadInterleavedChroma`).
#ifndef CHROMA_PAIRS
#define CHROMA_PAIRS 0
#endif
uniform vec2 lumaSize;       // picture size in pixels
uniform vec2 chromaSize;     // chroma plane size in samples
uniform vec2 chromaScale;    // 1 / subsampling: 1 or 0.5 per direction
uniform vec2 chromaSiting;   // where chroma sits, in chroma samples from the centred position
uniform int swapChroma;      // 1: the planes or pairs hold Cr before Cb (YV12, NV21)
uniform int uyvyOrder;       // packed 4:2:2: 0 Y0 Cb Y1 Cr (YUYV), 1 Cb Y0 Cr Y1 (UYVY)
uniform int swapRedBlue;     // RGBA layout holding BGRA
uniform mat3 colorMatrix;    // samples -> R'G'B'
uniform vec3 colorOffset;
// 1: 8-bit samples; 2: 10- or 16-bit samples as little-endian byte pairs (a Y' plane as RG8,
// interleaved chroma as RGBA8, RGBA64 as two RGBA8 texels a pixel), decoded exactly here.
#ifndef SAMPLE_BYTES
#define SAMPLE_BYTES 1
#endif
#if SAMPLE_BYTES == 2
uniform float inverseLargestSample;  // 1 / the largest stored sample (1023, 65472, 65535)
#endif

// Exactness on every driver: some (llvmpipe) convert unorm8 to float up to 0.1 level off, and
// divide through an approximate reciprocal (3e-4 relative error, even for constant divisions).
// So fetched samples are snapped to their 8-bit value, and this shader never divides.
const float inverse255 = 0.003921568627450980;

// An 8-bit texel, exactly.
vec4 fetch(sampler2D plane, ivec2 position) {
    return round(texelFetch(plane, position, 0) * 255.0) * inverse255;
}

// The 8-bit path is written out on its own, apart from the deep one below: llvmpipe ran the
// same operations 30 % slower when they went through the helpers the two paths could share.
#if SAMPLE_BYTES == 2
// Two little-endian 16-bit words of a texel (bytes r g, then b a) as their integer values.
vec2 words(vec4 texel) {
    vec4 bytes = round(texel * 255.0);
    return vec2(bytes.r + 256.0 * bytes.g, bytes.b + 256.0 * bytes.a);
}

// `value` rounded to the nearest half float, so that storing it in a half-float frame is exact:
// drivers may truncate instead (llvmpipe does), up to a whole step off, which above 1.0 is one
// 10-bit code. The step is the power of two of the value's binade, 2^-10 of it (normals only:
// below 2^-14 the step of 2^-24 is far finer than any sample).
vec3 nearestHalf(vec3 value) {
    vec3 binade = floor(log2(max(abs(value), vec3(6.103515625e-05))));
    return round(value * exp2(10.0 - binade)) * exp2(binade - 10.0);
}
#endif

// The four chroma samples around luma `position` (pixel edges; centres at n + 0.5) and the
// bilinear weights between them, for the planes to interpolate in float.
struct ChromaFootprint {
    ivec2 first;
    ivec2 last;
    vec2 weight;
};

ChromaFootprint chromaFootprint(vec2 position) {
    vec2 samplePosition = clamp(position * chromaScale + chromaSiting - 0.5, vec2(0.0), chromaSize - 1.0);
    ChromaFootprint footprint;
    footprint.first = ivec2(floor(samplePosition));
    footprint.last = min(footprint.first + 1, ivec2(chromaSize) - 1);
    footprint.weight = samplePosition - vec2(footprint.first);
    return footprint;
}

// Bilinear interpolation of a chroma plane's (one or two) channels over `footprint`, in float
// from exact 8-bit samples.
vec2 interpolate(sampler2D plane, ChromaFootprint footprint) {
#if SAMPLE_BYTES == 2
    // 16-bit words: one Cb Cr pair a texel.
    vec2 a = words(texelFetch(plane, footprint.first, 0));
    vec2 b = words(texelFetch(plane, ivec2(footprint.last.x, footprint.first.y), 0));
    vec2 c = words(texelFetch(plane, ivec2(footprint.first.x, footprint.last.y), 0));
    vec2 d = words(texelFetch(plane, footprint.last, 0));
    vec2 top = mix(a, b, footprint.weight.x);
    vec2 bottom = mix(c, d, footprint.weight.x);
    return mix(top, bottom, footprint.weight.y) * inverseLargestSample;
#else
#if CHROMA_PAIRS == 1
    // Samples first.x and last.x of a row in one texel (last.x is first.x + 1 or the last column,
    // which the texel repeats).
    vec4 upper = texelFetch(plane, footprint.first, 0);
    vec4 lower = texelFetch(plane, ivec2(footprint.first.x, footprint.last.y), 0);
    vec2 a = upper.rg, b = upper.ba, c = lower.rg, d = lower.ba;
#else
    vec2 a = texelFetch(plane, footprint.first, 0).rg;
    vec2 b = texelFetch(plane, ivec2(footprint.last.x, footprint.first.y), 0).rg;
    vec2 c = texelFetch(plane, ivec2(footprint.first.x, footprint.last.y), 0).rg;
    vec2 d = texelFetch(plane, footprint.last, 0).rg;
#endif
    vec2 top = mix(round(a * 255.0), round(b * 255.0), footprint.weight.x);
    vec2 bottom = mix(round(c * 255.0), round(d * 255.0), footprint.weight.x);
    return mix(top, bottom, footprint.weight.y) * inverse255;
#endif
}

// Chroma of packed 4:2:2 at pixel column x, interpolated between co-sited samples.
vec2 packedChroma(ivec2 pixel) {
    float position = float(pixel.x) * 0.5;
    int left = int(floor(position));
    int right = min(left + 1, int(chromaSize.x) - 1);
    vec4 a = fetch(inputImageTexture, ivec2(left, pixel.y));
    vec4 b = fetch(inputImageTexture, ivec2(right, pixel.y));
    vec2 ca = uyvyOrder == 1 ? a.rb : a.ga;
    vec2 cb = uyvyOrder == 1 ? b.rb : b.ga;
    return mix(ca, cb, fract(position));
}

// The RGBA colour of the picture at `position` (in pixels, the centre of a pixel at n + 0.5).
vec4 pictureColor(vec2 position) {
    ivec2 pixel = clamp(ivec2(floor(position)), ivec2(0), ivec2(lumaSize) - 1);
    vec3 samples;
    float alpha = 1.0;  // opaque but for RGBA and BGRA pictures, whose alpha is kept
#if PLANE_LAYOUT == 0
    ChromaFootprint footprint = chromaFootprint(position);
    samples = vec3(fetch(inputImageTexture, pixel).r,
                   interpolate(inputImageTexture2, footprint).r,
                   interpolate(inputImageTexture3, footprint).r);
    samples = swapChroma == 1 ? samples.xzy : samples;
#elif PLANE_LAYOUT == 1
    vec2 pair = interpolate(inputImageTexture2, chromaFootprint(position));
#if SAMPLE_BYTES == 2
    samples = vec3(words(texelFetch(inputImageTexture, pixel, 0)).x * inverseLargestSample, swapChroma == 1 ? pair.yx : pair);
#elif defined(FUSED_LUMA_QUADS)
    // The Y' plane uploaded as RGBA8 texels of four samples (see pictureColorsAround).
    samples = vec3(fetch(inputImageTexture, ivec2(pixel.x / 4, pixel.y))[pixel.x % 4], swapChroma == 1 ? pair.yx : pair);
#else
    samples = vec3(fetch(inputImageTexture, pixel).r, swapChroma == 1 ? pair.yx : pair);
#endif
#elif PLANE_LAYOUT == 2
    vec4 texel = fetch(inputImageTexture, ivec2(pixel.x / 2, pixel.y));
    bool odd = (pixel.x & 1) == 1;
    float luma = uyvyOrder == 1 ? (odd ? texel.a : texel.g) : (odd ? texel.b : texel.r);
    samples = vec3(luma, packedChroma(pixel));
#elif PLANE_LAYOUT == 3
    samples = vec3(fetch(inputImageTexture, pixel).r, 128.0 * inverse255, 128.0 * inverse255);
#elif PLANE_LAYOUT == 4
    samples = vec3(fetch(inputImageTexture, ivec2(pixel.x * 3, pixel.y)).r,
                   fetch(inputImageTexture, ivec2(pixel.x * 3 + 1, pixel.y)).r,
                   fetch(inputImageTexture, ivec2(pixel.x * 3 + 2, pixel.y)).r);
#elif SAMPLE_BYTES == 2
    // RGBA64: red and green in texel 2x, blue and alpha in texel 2x + 1.
    vec2 redGreen = words(texelFetch(inputImageTexture, ivec2(2 * pixel.x, pixel.y), 0));
    vec2 blueAlpha = words(texelFetch(inputImageTexture, ivec2(2 * pixel.x + 1, pixel.y), 0));
    samples = vec3(redGreen, blueAlpha.x) * inverseLargestSample;
    alpha = blueAlpha.y * inverseLargestSample;
#else
    vec4 texel = fetch(inputImageTexture, pixel);
    samples = swapRedBlue == 1 ? texel.bgr : texel.rgb;
    alpha = texel.a;
#endif
#if SAMPLE_BYTES == 2
    // The half-float frame keeps what lies outside the RGB cube (saturated Y'CbCr that R'G'B' in
    // 0...1 cannot hold), so a round trip gives it back; sinks clamp when they quantize.
    return vec4(nearestHalf(colorMatrix * samples + colorOffset), alpha);
#else
    return vec4(clamp(colorMatrix * samples + colorOffset, 0.0, 1.0), alpha);
#endif
}

#if FUSED_PACK == 1 && PLANE_LAYOUT == 1 && defined(FUSED_CHROMA_COLUMNS)
// The colours of pixels first.x - 1 ... first.x + 3 of a row (the first is pixel 0 at the left
// edge; the pack of co-sited chroma needs it), with first.x a multiple of 4 in the picture: they
// interpolate between the same four chroma columns (FUSED_CHROMA_COLUMNS 3, co-sited across:
// the four pixels from first.x need three of them; 4, centred: all four), fetched once for the
// five instead of four times each; the weights are those of `chromaFootprint`. One code path for
// every fragment, no branch: llvmpipe runs a branch's code for fragments that skip it too.
void pictureColorsAround(ivec2 first, out vec4 colors[5]) {
    ChromaFootprint base = chromaFootprint(vec2(first) + 0.5);
    int lastColumn = int(chromaSize.x) - 1;
#if FUSED_CHROMA_COLUMNS == 3
    int firstColumn = base.first.x - 1;  // pixel 0 sits on column 1, pixel -1 halfway from column 0
#else
    int firstColumn = first.x / 2 - 1;   // pixel 0 sits a quarter before column first.x / 2
#endif
    vec2 columns[4];  // every pixel of the row has the row's vertical weight
#if CHROMA_PAIRS == 1
    for (int c = 0; c < 4; c += 2) {  // two columns a read
        ivec2 column = ivec2(clamp(firstColumn + c, 0, lastColumn), base.first.y);
        vec4 top = round(texelFetch(inputImageTexture2, column, 0) * 255.0);
        vec4 bottom = round(texelFetch(inputImageTexture2, ivec2(column.x, base.last.y), 0) * 255.0);
        columns[c] = mix(top.rg, bottom.rg, base.weight.y);
        columns[c + 1] = mix(top.ba, bottom.ba, base.weight.y);
    }
    // At the left edge column -1 is column 0 (clamped), and so is the column after it.
    columns[1] = firstColumn < 0 ? columns[0] : columns[1];
#else
    for (int c = 0; c < 4; c++) {
        ivec2 column = ivec2(clamp(firstColumn + c, 0, lastColumn), base.first.y);
        vec2 top = round(texelFetch(inputImageTexture2, column, 0).rg * 255.0);
        vec2 bottom = round(texelFetch(inputImageTexture2, ivec2(column.x, base.last.y), 0).rg * 255.0);
        columns[c] = mix(top, bottom, base.weight.y);
    }
#endif
    int previous = max(first.x - 1, 0);
#ifdef FUSED_LUMA_QUADS
    // The Y' plane uploaded as RGBA8, four samples per texel: one fetch for the four pixels.
    vec4 quad = round(texelFetch(inputImageTexture, ivec2(first.x / 4, first.y), 0) * 255.0) * inverse255;
    float lumas[5] = float[5](fetch(inputImageTexture, ivec2(previous / 4, first.y)).a, quad.x, quad.y, quad.z, quad.w);
    lumas[0] = first.x == 0 ? quad.x : lumas[0];
#else
    float lumas[5];
    lumas[0] = fetch(inputImageTexture, ivec2(previous, first.y)).r;
    for (int k = 0; k < 4; k++) {
        lumas[k + 1] = fetch(inputImageTexture, first + ivec2(k, 0)).r;
    }
#endif
#if FUSED_CHROMA_COLUMNS == 3
    // Horizontally co-sited chroma: even pixels sit on columns 1 and 2, odd ones halfway to the
    // next column (pixel -1 between columns 0 and 1; at the left edge both are column 0).
    vec2 pairs[5] = vec2[5]((columns[0] + columns[1]) * 0.5, columns[1], (columns[1] + columns[2]) * 0.5,
                            columns[2], (columns[2] + columns[3]) * 0.5);
#else
    // Centred chroma: the pixels sit a quarter and three quarters between columns 0-1, 0-1, 1-2,
    // 1-2 and 2-3 (the edge columns repeat, as the clamped footprint does).
    vec2 pairs[5] = vec2[5](mix(columns[0], columns[1], 0.25), mix(columns[0], columns[1], 0.75),
                            mix(columns[1], columns[2], 0.25), mix(columns[1], columns[2], 0.75),
                            mix(columns[2], columns[3], 0.25));
#endif
    for (int k = 0; k < 5; k++) {
        vec2 pair = pairs[k] * inverse255;
        vec3 samples = vec3(lumas[k], swapChroma == 1 ? pair.yx : pair);
        colors[k] = vec4(clamp(colorMatrix * samples + colorOffset, 0.0, 1.0), 1.0);
    }
}

// The colours of four pixels of a row from `first` on (`pictureColorsAround` without the pixel
// before; the compiler drops its reads).
void pictureColorsInRow(ivec2 first, out vec4 colors[4]) {
    vec4 five[5];
    pictureColorsAround(first, five);
    for (int k = 0; k < 4; k++) {
        colors[k] = five[k + 1];
    }
}
#endif

#if FUSED_PACK == 0
void main() {
    fragColor = pictureColor(textureCoordinate * lumaSize);
}
#endif
