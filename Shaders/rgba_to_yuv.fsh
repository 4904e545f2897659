#version 300 es
// One plane of Y'CbCr from an RGBA picture, four 8-bit samples per output RGBA texel (so a plane
// row of N samples is N/4 texels, read back as bytes). Chroma is filtered at its siting:
// MPEG-2 "left" 4:2:0 takes [1 2 1]/4 across and [1 1]/2 down as two bilinear fetches.
precision highp float;
precision highp int;

out vec4 fragColor;
uniform sampler2D inputImageTexture;

// 0 Y', 1 Cb, 2 Cr, 3 interleaved Cb Cr (two pairs per texel)
uniform int planeKind;
uniform vec2 pictureSize;    // RGBA input size in pixels
uniform vec2 chromaDivisor;  // 1 or 2 per direction
uniform int centredChroma;   // 1: chroma centred in its block (JPEG); 0: co-sited left (MPEG-2)
uniform int swapChroma;      // interleaved pairs as Cr Cb (NV21)
uniform mat3 colorMatrix;    // R'G'B' -> samples
uniform vec3 colorOffset;

vec3 yuvAt(vec2 edgePosition) {
    vec3 rgb = texture(inputImageTexture, edgePosition / pictureSize).rgb;
    return colorMatrix * rgb + colorOffset;
}

// Y'CbCr of the chroma sample at index `index` of the chroma plane.
vec3 chromaSample(vec2 index) {
    vec2 origin = index * chromaDivisor;  // top-left pixel edge of the block
    if (chromaDivisor == vec2(1.0)) {
        return yuvAt(origin + 0.5);
    }
    float y = origin.y + (chromaDivisor.y == 2.0 ? 1.0 : 0.5);
    if (centredChroma == 1 || chromaDivisor.x == 1.0) {
        return yuvAt(vec2(origin.x + chromaDivisor.x * 0.5, y));
    }
    return 0.5 * (yuvAt(vec2(origin.x, y)) + yuvAt(vec2(origin.x + 1.0, y)));
}

void main() {
    ivec2 texel = ivec2(gl_FragCoord.xy);
    vec4 result;
    if (planeKind == 0) {
        for (int k = 0; k < 4; k++) {
            vec2 pixel = vec2(float(texel.x * 4 + k), float(texel.y)) + 0.5;
            result[k] = yuvAt(pixel).x;
        }
    } else if (planeKind == 3) {
        vec3 first = chromaSample(vec2(float(texel.x * 2), float(texel.y)));
        vec3 second = chromaSample(vec2(float(texel.x * 2 + 1), float(texel.y)));
        result = swapChroma == 1 ? vec4(first.zy, second.zy) : vec4(first.yz, second.yz);
    } else {
        for (int k = 0; k < 4; k++) {
            vec3 yuv = chromaSample(vec2(float(texel.x * 4 + k), float(texel.y)));
            result[k] = planeKind == 1 ? yuv.y : yuv.z;
        }
    }
    fragColor = clamp(result, 0.0, 1.0);
}
