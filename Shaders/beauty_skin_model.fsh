#version 300 es
// Beauty, skin model step 3 (4x1 texels, each holding part of one model): the skin colour of this
// frame, estimated from the grid points (step 1) and their chroma histogram (step 2):
// 1. a reference white: half the mean chroma of the frame's outskirts (the points outside the
//    face prior), so that warm or cool light does not move the search;
// 2. the histogram bin with the most position-weighted points at a skin-like chroma relative to
//    that reference (hue 80°-170° from the Cb axis, chroma 0.003-0.3: a face is redder than the
//    grey or beige wall behind it);
// 3. mean-shift steps from that bin over the points with skin-like chroma, first in chroma, then in
//    chroma and luma together (so that hair or shadows of the same hue do not pull the estimate),
//    then the weighted mean and covariance of the chroma and the mean and spread of the luma of
//    the points around the found mode.
// With no skin-like chroma anywhere (grayscale, or no face) the chroma is marked uninformative and
// the mask falls back on luma and position. The result is blended with the previous frame's
// model (`adaptation` 1 takes the new one) so that the mask does not flicker on video.
//
// Texels: 0 = mean Cb, Cr (+0.5); 1 = mean luma, 2 x its deviation; 2 = 4 x the deviations of
// Cb and Cr (each 16 bits in two channels); 3 = (correlation + 1) / 2, chroma informative,
// confidence that there is skin (8 bits each).
precision highp float;
uniform sampler2D inputImageTexture;   // step 1: 32x32 grid points, alpha = position weight
uniform sampler2D inputImageTexture2;  // step 2: 12x12 histogram
uniform sampler2D inputImageTexture3;  // the previous frame's model (when adaptation < 1)
out vec4 fragColor;

uniform float adaptation;

const vec2 chromaOrigin = vec2(-0.30, -0.06);
const float binSize = 0.03;

vec2 chroma(vec3 rgb) {
    return vec2(dot(rgb, vec3(-0.168736, -0.331264, 0.5)), dot(rgb, vec3(0.5, -0.418688, -0.081312)));
}

float luma(vec3 rgb) {
    return dot(rgb, vec3(0.299, 0.587, 0.114));
}

float lumaPrior(vec3 rgb) {
    float y = luma(rgb);
    return smoothstep(0.04, 0.12, y) * (1.0 - smoothstep(0.93, 0.98, y));
}

float skinLikeChroma(vec2 relative) {
    float saturation = length(relative);
    if (saturation < 1e-4) {
        return 0.0;
    }
    float hue = degrees(atan(relative.y, relative.x));
    return (1.0 - smoothstep(25.0, 45.0, abs(hue - 125.0)))
        * smoothstep(0.003, 0.02, saturation) * (1.0 - smoothstep(0.2, 0.3, saturation));
}

float unpack16(vec2 pair) {
    return (pair.x * 255.0 + pair.y) / 255.0;
}

vec2 pack16(float value) {
    float scaled = clamp(value, 0.0, 1.0) * 255.0;
    float high = floor(scaled);
    return vec2(high / 255.0, scaled - high);
}

// The weighted mean chroma and luma of the points within `width` (chroma, luma) of `centre`, and
// the deviation of their luma. Points count by their position weight, the luma prior and, while
// the frame has skin-like chroma (`skinLikeOnly`), how skin-like their chroma is.
vec3 meanShift(vec3 centre, vec2 width, vec2 reference, bool skinLikeOnly, out float lumaDeviation) {
    vec4 sum = vec4(0.0);
    float sumOfSquares = 0.0;
    for (int y = 0; y < 32; ++y) {
        for (int x = 0; x < 32; ++x) {
            vec4 point = texelFetch(inputImageTexture, ivec2(x, y), 0);
            vec3 c = vec3(chroma(point.rgb), luma(point.rgb));
            vec3 offset = (c - centre) / width.xxy;
            float weight = point.a * lumaPrior(point.rgb) * exp(-0.5 * dot(offset, offset));
            weight *= skinLikeOnly ? skinLikeChroma(c.xy - reference) : 1.0;
            sum += vec4(weight * c, weight);
            sumOfSquares += weight * c.z * c.z;
        }
    }
    if (sum.w <= 1e-6) {
        lumaDeviation = 0.25;
        return centre;
    }
    vec3 mean = sum.xyz / sum.w;
    lumaDeviation = sqrt(max(sumOfSquares / sum.w - mean.z * mean.z, 0.0));
    return mean;
}

void main() {
    // 1. The reference white.
    vec3 outskirts = vec3(0.0);
    for (int y = 0; y < 32; ++y) {
        for (int x = 0; x < 32; ++x) {
            vec4 point = texelFetch(inputImageTexture, ivec2(x, y), 0);
            outskirts += (1.0 - point.a) * vec3(chroma(point.rgb), 1.0);
        }
    }
    vec2 reference = outskirts.z > 1e-3 ? 0.5 * outskirts.xy / outskirts.z : vec2(0.0);

    // 2. The most populated skin-like bin.
    float bestScore = 0.0;
    float bestDensity = 0.0;
    vec2 start = reference;
    for (int y = 0; y < 12; ++y) {
        for (int x = 0; x < 12; ++x) {
            vec2 centre = chromaOrigin + (vec2(float(x), float(y)) + 0.5) * binSize;
            float density = unpack16(texelFetch(inputImageTexture2, ivec2(x, y), 0).rg);
            float score = density * skinLikeChroma(centre - reference);
            if (score > bestScore) {
                bestScore = score;
                bestDensity = density;
                start = centre;
            }
        }
    }

    // 3. The mode and the spread around it: the chroma's mode first (luma left free), then the joint
    // mode with the luma, searched from above the middle of the luma there (hair and shadows of the
    // same hue are usually darker than the lit skin of the face).
    bool skinLikeOnly = bestScore > 1e-5;
    float lumaDeviation;
    vec3 mode = meanShift(vec3(start, 0.5), vec2(0.025, 100.0), reference, skinLikeOnly, lumaDeviation);
    mode.z += 0.5 * lumaDeviation;
    mode = meanShift(mode, vec2(0.025, 0.1), reference, skinLikeOnly, lumaDeviation);
    mode = meanShift(mode, vec2(0.025, 0.1), reference, skinLikeOnly, lumaDeviation);
    vec2 sumChroma = vec2(0.0);
    vec3 sumSquares = vec3(0.0);  // Cb², Cr², Cb·Cr
    vec2 sumLuma = vec2(0.0);      // Y, Y²
    float total = 0.0;
    for (int y = 0; y < 32; ++y) {
        for (int x = 0; x < 32; ++x) {
            vec4 point = texelFetch(inputImageTexture, ivec2(x, y), 0);
            vec2 c = chroma(point.rgb) - mode.xy;
            float l = luma(point.rgb);
            vec3 offset = vec3(c, l - mode.z) / vec3(0.03, 0.03, 0.1);
            float weight = point.a * lumaPrior(point.rgb) * exp(-0.5 * dot(offset, offset));
            weight *= skinLikeOnly ? skinLikeChroma(c + mode.xy - reference) : 1.0;
            sumChroma += weight * c;
            sumSquares += weight * vec3(c.x * c.x, c.y * c.y, c.x * c.y);
            sumLuma += weight * vec2(l, l * l);
            total += weight;
        }
    }
    float norm = 1.0 / max(total, 1e-6);
    vec2 meanOffset = sumChroma * norm;
    vec2 meanChroma = mode.xy + meanOffset;
    vec3 covariance = sumSquares * norm - vec3(meanOffset.x * meanOffset.x, meanOffset.y * meanOffset.y, meanOffset.x * meanOffset.y);
    vec2 deviation = sqrt(max(covariance.xy, vec2(0.0)));
    float correlation = covariance.z / max(deviation.x * deviation.y, 1e-8);
    float meanLuma = total > 1e-6 ? sumLuma.x * norm : 0.5;
    lumaDeviation = total > 1e-6 ? sqrt(max(sumLuma.y * norm - meanLuma * meanLuma, 0.0)) : 0.25;
    // Informative only when points with skin-like chroma were found (a gray frame's histogram
    // peak sits next to gray, where no point is skin-like).
    float informative = skinLikeOnly && total > 1e-4
        ? smoothstep(0.008, 0.025, max(length(meanChroma), length(meanChroma - reference))) : 0.0;
    float confidence = mix(1.0, smoothstep(0.01, 0.04, bestDensity), informative);

    // The texel this fragment writes, blended with the previous model's.
    int texel = int(gl_FragCoord.x);
    vec4 previous = texelFetch(inputImageTexture3, ivec2(texel, 0), 0);
    vec4 current;
    if (texel == 3) {
        current = vec4(0.5 * (clamp(correlation, -1.0, 1.0) + 1.0), informative, confidence, 1.0);
        fragColor = mix(previous, current, adaptation);
        return;
    }
    vec2 values = texel == 0 ? meanChroma + 0.5 : (texel == 1 ? vec2(meanLuma, 2.0 * lumaDeviation) : 4.0 * deviation);
    vec2 before = vec2(unpack16(previous.rg), unpack16(previous.ba));
    vec2 blended = mix(before, values, adaptation);
    fragColor = vec4(pack16(blended.x), pack16(blended.y));
}
