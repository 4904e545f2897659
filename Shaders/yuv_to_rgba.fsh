#version 300 es
// CPU planes (uploaded as textures) to RGBA in one pass: fetch Y'CbCr (or RGB) for the output
// pixel, interpolating subsampled chroma at its siting, then apply the colour matrix and range.
// Samples are fetched exactly (texelFetch) and chroma is interpolated here in float: texture
// filtering units round weights and results to 8 bits, and the matrix amplifies a chroma
// rounding error almost twofold. The pass maps pixels 1:1 (turned, never scaled).
precision highp float;
precision highp int;

in vec2 textureCoordinate;
out vec4 fragColor;

uniform sampler2D inputImageTexture;   // plane 0
uniform sampler2D inputImageTexture2;  // plane 1 (Cb, or interleaved CbCr)
uniform sampler2D inputImageTexture3;  // plane 2 (Cr)

// 0 planar Y/Cb/Cr, 1 Y + interleaved CbCr, 2 packed 4:2:2, 3 gray, 4 packed RGB24 (as R8), 5 RGBA
uniform int planeLayout;
uniform vec2 lumaSize;       // picture size in pixels
uniform vec2 chromaSize;     // chroma plane size in samples
uniform vec2 chromaScale;    // 1 / subsampling: 1 or 0.5 per direction
uniform vec2 chromaSiting;   // where chroma sits, in chroma samples from the centred position
uniform int swapChroma;      // 1: the planes or pairs hold Cr before Cb (YV12, NV21)
uniform int uyvyOrder;       // packed 4:2:2: 0 Y0 Cb Y1 Cr (YUYV), 1 Cb Y0 Cr Y1 (UYVY)
uniform int swapRedBlue;     // RGBA layout holding BGRA
uniform mat3 colorMatrix;    // samples -> R'G'B'
uniform vec3 colorOffset;

// Exactness on every driver: some (llvmpipe) convert unorm8 to float up to 0.1 level off, and
// divide through an approximate reciprocal (3e-4 relative error, even for constant divisions).
// So fetched samples are snapped to their 8-bit value, and this shader never divides.
const float inverse255 = 0.003921568627450980;

// An 8-bit texel, exactly.
vec4 fetch(sampler2D plane, ivec2 position) {
    return round(texelFetch(plane, position, 0) * 255.0) * inverse255;
}

// Bilinear interpolation of a chroma plane at luma `position` (pixel edges; centres at n + 0.5).
vec4 chromaAt(sampler2D plane, vec2 position) {
    vec2 samplePosition = clamp(position * chromaScale + chromaSiting - 0.5, vec2(0.0), chromaSize - 1.0);
    ivec2 first = ivec2(floor(samplePosition));
    ivec2 last = min(first + 1, ivec2(chromaSize) - 1);
    vec2 weight = samplePosition - vec2(first);
    vec4 top = mix(fetch(plane, first), fetch(plane, ivec2(last.x, first.y)), weight.x);
    vec4 bottom = mix(fetch(plane, ivec2(first.x, last.y)), fetch(plane, last), weight.x);
    return mix(top, bottom, weight.y);
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

void main() {
    vec2 position = textureCoordinate * lumaSize;  // in pixels, centre of a pixel at n + 0.5
    ivec2 pixel = clamp(ivec2(floor(position)), ivec2(0), ivec2(lumaSize) - 1);
    vec3 samples;
    if (planeLayout == 0) {
        samples = vec3(fetch(inputImageTexture, pixel).r,
                       chromaAt(inputImageTexture2, position).r,
                       chromaAt(inputImageTexture3, position).r);
        if (swapChroma == 1) samples = samples.xzy;
    } else if (planeLayout == 1) {
        vec2 pair = chromaAt(inputImageTexture2, position).rg;
        samples = vec3(fetch(inputImageTexture, pixel).r, swapChroma == 1 ? pair.yx : pair);
    } else if (planeLayout == 2) {
        vec4 texel = fetch(inputImageTexture, ivec2(pixel.x / 2, pixel.y));
        bool odd = (pixel.x & 1) == 1;
        float luma = uyvyOrder == 1 ? (odd ? texel.a : texel.g) : (odd ? texel.b : texel.r);
        samples = vec3(luma, packedChroma(pixel));
    } else if (planeLayout == 3) {
        samples = vec3(fetch(inputImageTexture, pixel).r, 128.0 * inverse255, 128.0 * inverse255);
    } else if (planeLayout == 4) {
        samples = vec3(fetch(inputImageTexture, ivec2(pixel.x * 3, pixel.y)).r,
                       fetch(inputImageTexture, ivec2(pixel.x * 3 + 1, pixel.y)).r,
                       fetch(inputImageTexture, ivec2(pixel.x * 3 + 2, pixel.y)).r);
    } else {
        vec4 texel = fetch(inputImageTexture, pixel);
        samples = swapRedBlue == 1 ? texel.bgr : texel.rgb;
    }
    fragColor = vec4(clamp(colorMatrix * samples + colorOffset, 0.0, 1.0), 1.0);
}
