#version 300 es
// CPU planes (uploaded as textures) to RGBA in one pass: fetch Y'CbCr (or RGB) for the output
// pixel, interpolating subsampled chroma at its siting, then apply the colour matrix and range.
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
uniform vec2 chromaDivisor;  // subsampling: 1 or 2 per direction
uniform vec2 chromaSiting;   // where chroma sits, in chroma samples from the centred position
uniform int swapChroma;      // 1: the planes or pairs hold Cr before Cb (YV12, NV21)
uniform int uyvyOrder;       // packed 4:2:2: 0 Y0 Cb Y1 Cr (YUYV), 1 Cb Y0 Cr Y1 (UYVY)
uniform int swapRedBlue;     // RGBA layout holding BGRA
uniform mat3 colorMatrix;    // samples -> R'G'B'
uniform vec3 colorOffset;

vec2 chromaCoordinate(vec2 position) {
    return (position / chromaDivisor + chromaSiting) / chromaSize;
}

// Chroma of packed 4:2:2 at pixel column x, interpolated between co-sited samples.
vec2 packedChroma(ivec2 pixel) {
    float position = float(pixel.x) * 0.5;
    int left = int(floor(position));
    int right = min(left + 1, int(chromaSize.x) - 1);
    vec4 a = texelFetch(inputImageTexture, ivec2(left, pixel.y), 0);
    vec4 b = texelFetch(inputImageTexture, ivec2(right, pixel.y), 0);
    vec2 ca = uyvyOrder == 1 ? a.rb : a.ga;
    vec2 cb = uyvyOrder == 1 ? b.rb : b.ga;
    return mix(ca, cb, fract(position));
}

void main() {
    vec2 position = textureCoordinate * lumaSize;  // in pixels, centre of a pixel at n + 0.5
    ivec2 pixel = clamp(ivec2(floor(position)), ivec2(0), ivec2(lumaSize) - 1);
    vec3 samples;
    if (planeLayout == 0) {
        vec2 chroma = chromaCoordinate(position);
        samples = vec3(texture(inputImageTexture, textureCoordinate).r,
                       texture(inputImageTexture2, chroma).r,
                       texture(inputImageTexture3, chroma).r);
        if (swapChroma == 1) samples = samples.xzy;
    } else if (planeLayout == 1) {
        vec2 pair = texture(inputImageTexture2, chromaCoordinate(position)).rg;
        samples = vec3(texture(inputImageTexture, textureCoordinate).r, swapChroma == 1 ? pair.yx : pair);
    } else if (planeLayout == 2) {
        vec4 texel = texelFetch(inputImageTexture, ivec2(pixel.x / 2, pixel.y), 0);
        bool odd = (pixel.x & 1) == 1;
        float luma = uyvyOrder == 1 ? (odd ? texel.a : texel.g) : (odd ? texel.b : texel.r);
        samples = vec3(luma, packedChroma(pixel));
    } else if (planeLayout == 3) {
        samples = vec3(texture(inputImageTexture, textureCoordinate).r, 128.0 / 255.0, 128.0 / 255.0);
    } else if (planeLayout == 4) {
        samples = vec3(texelFetch(inputImageTexture, ivec2(pixel.x * 3, pixel.y), 0).r,
                       texelFetch(inputImageTexture, ivec2(pixel.x * 3 + 1, pixel.y), 0).r,
                       texelFetch(inputImageTexture, ivec2(pixel.x * 3 + 2, pixel.y), 0).r);
    } else {
        vec4 texel = texture(inputImageTexture, textureCoordinate);
        samples = swapRedBlue == 1 ? texel.bgr : texel.rgb;
    }
    fragColor = vec4(clamp(colorMatrix * samples + colorOffset, 0.0, 1.0), 1.0);
}
