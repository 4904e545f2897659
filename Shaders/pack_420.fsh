#version 300 es
// 8-bit 4:2:0 (I420, YV12) with the matched chroma filter in two passes that each touch a pixel
// once: the same filter as rgba_to_yuv.fsh's (the [1 2 1]/4 or [1 1]/2 average at each chroma
// site, then [-1 8 -1]/6 across neighbouring sites in both directions), with the same edges (sites
// beyond the picture average its clamped pixels), in fewer fragments.
//
// PASS 1 (PACK_PASS 1), one fragment per four pixels of a row, over W/4 + 2 texel columns: column
// t takes pixels 4(t - 1) ... 4(t - 1) + 3, clamped to the picture (columns 0 and W/4 + 1 lie
// beyond its edges). It computes the pixels' R'G'B' once (from an RGBA picture, or with
// FUSED_PACK 1 from `fusedRow`: the uploaded planes converted and coloured in the same pass) and
// writes
//   location 0: their four Y' samples (columns 1 ... W/4 are the Y' plane);
//   location 1: the chroma average across (MPEG-2 "left": [1 2 1]/4 around the first and third
//               pixel, which takes the pixel before them too; JPEG "center": [1 1]/2 of the first
//               two and of the last two) of the row's chroma sites 2(t - 1) and 2(t - 1) + 1, as
//               Cb Cr without their offset (around 0, where half floats are finest), into a
//               half-float target. Columns 0 and W/4 + 1 hold the sites beyond the edges (sites
//               -1 and W/2 average the clamped pixels: the edge pixel).
// PASS 2 (PACK_PASS 2), one fragment per four chroma samples of a row (a chroma plane's texel):
// reads pass 1's averages across of the six luma rows around its sites (clamped at the top and
// bottom, which averages the clamped pixels there), averages them down ([1 1]/2: both sitings are
// between rows), sharpens down and across, and writes Cb to location 0 and Cr to location 1.
// 24 reads a texel of both planes: 3 a chroma sample.
precision highp float;
precision highp int;

#ifndef PACK_PASS
#define PACK_PASS 1
#endif
#ifndef CHROMA_SITING
#define CHROMA_SITING 0       // 0: co-sited left (MPEG-2); 1: centred (JPEG)
#endif
#ifndef FUSED_PACK
#define FUSED_PACK 0
#endif
#ifndef PICTURE_SNAP
#define PICTURE_SNAP 1        // 1: the picture holds 8-bit values (RGBA8), snapped exactly; 0: half floats
#endif

uniform vec2 packPictureSize;    // in pixels
uniform mat3 packMatrix;      // R'G'B' -> samples
uniform vec3 packOffset;

#if PACK_PASS == 1
layout(location = 0) out vec4 packLumaTexel;
layout(location = 1) out vec4 packAverages;

#if FUSED_PACK == 0
uniform sampler2D inputImageTexture;

vec3 rgbAt(ivec2 pixel) {
    vec3 rgb = texelFetch(inputImageTexture, clamp(pixel, ivec2(0), ivec2(packPictureSize) - 1), 0).rgb;
#if PICTURE_SNAP == 1
    // Snapped to exact 8-bit values: some drivers (llvmpipe) convert unorm8 to float up to 0.1
    // level off (as rgba_to_yuv.fsh's rgbAt).
    rgb = round(rgb * 255.0) * 0.003921568627450980;
#endif
    return rgb;
}

// The R'G'B' of pixels first.x - 1 (clamped) ... first.x + 3 of row first.y.
void packRowColors(ivec2 first, out vec3 colors[5]) {
    for (int k = 0; k < 5; k++) {
        colors[k] = rgbAt(first + ivec2(k - 1, 0));
    }
}
#else
// With FUSED_PACK 1 the generated shader defines `fusedRow`: pixels first.x - 1 ... first.x + 3,
// clamped to the picture, as the separate passes would store them.
void packRowColors(ivec2 first, out vec3 colors[5]) {
    fusedRow(first, colors);
}
#endif

void main() {
    ivec2 texel = ivec2(gl_FragCoord.xy);
    vec3 colors[5];
    packRowColors(ivec2(4 * (texel.x - 1), texel.y), colors);
    vec3 yuv[5];
    for (int k = 0; k < 5; k++) {
        yuv[k] = packMatrix * colors[k] + packOffset;  // as rgba_to_yuv.fsh writes Y', to the bit
    }
    packLumaTexel = clamp(vec4(yuv[1].x, yuv[2].x, yuv[3].x, yuv[4].x), 0.0, 1.0);
    // The averages without the offset (their weights sum to 1).
#if CHROMA_SITING == 0
    packAverages = vec4(0.25 * (yuv[0].yz + yuv[2].yz) + 0.5 * yuv[1].yz,
                          0.25 * (yuv[2].yz + yuv[4].yz) + 0.5 * yuv[3].yz) - packOffset.yzyz;
#else
    packAverages = vec4(0.5 * (yuv[1].yz + yuv[2].yz), 0.5 * (yuv[3].yz + yuv[4].yz)) - packOffset.yzyz;
#endif
}

#else  // PACK_PASS 2
uniform sampler2D inputImageTexture;   // pass 1's averages across (location 1)
layout(location = 0) out vec4 cbTexel;
layout(location = 1) out vec4 crTexel;
const float sixth = 0.16666666666666666;

vec4 averagesAt(int column, int row) {
    return texelFetch(inputImageTexture, ivec2(column, row), 0);
}

// The averages across of sites 4x - 1 ... 4x + 4 in luma row `row` (clamped to the picture):
// texel t holds sites 2(t - 1) and 2(t - 1) + 1.
void rowSites(int x, int row, out vec2 sites[6]) {
    row = clamp(row, 0, int(packPictureSize.y) - 1);
    vec4 first = averagesAt(2 * x, row), second = averagesAt(2 * x + 1, row);
    vec4 third = averagesAt(2 * x + 2, row), fourth = averagesAt(2 * x + 3, row);
    sites[0] = first.zw;
    sites[1] = second.xy;
    sites[2] = second.zw;
    sites[3] = third.xy;
    sites[4] = third.zw;
    sites[5] = fourth.xy;
}

// The sites' averages down of luma rows `row` and `row` + 1: one chroma row.
void averagedDown(int x, int row, out vec2 sites[6]) {
    vec2 upper[6], lower[6];
    rowSites(x, row, upper);
    rowSites(x, row + 1, lower);
    for (int s = 0; s < 6; s++) {
        sites[s] = 0.5 * (upper[s] + lower[s]);
    }
}

void main() {
    ivec2 texel = ivec2(gl_FragCoord.xy);
    vec2 above[6], here[6], below[6];  // chroma rows r - 1, r, r + 1
    averagedDown(texel.x, 2 * texel.y - 2, above);
    averagedDown(texel.x, 2 * texel.y, here);
    averagedDown(texel.x, 2 * texel.y + 2, below);
    vec2 sharpened[6];
    for (int s = 0; s < 6; s++) {
        sharpened[s] = (8.0 * here[s] - above[s] - below[s]) * sixth;
    }
    vec4 cb, cr;
    for (int k = 0; k < 4; k++) {
        vec2 chroma = (8.0 * sharpened[k + 1] - sharpened[k] - sharpened[k + 2]) * sixth + packOffset.yz;
        cb[k] = chroma.x;
        cr[k] = chroma.y;
    }
    cbTexel = clamp(cb, 0.0, 1.0);
    crTexel = clamp(cr, 0.0, 1.0);
}
#endif
