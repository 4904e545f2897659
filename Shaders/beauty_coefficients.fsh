#version 300 es
// Beauty, pass 3 (reduced resolution): vertical 5-texel means of pass 2 give the 5x5 window's mean
// and variance of the luma; the guided filter's coefficients for the window follow:
// a = var / (var + epsilon), b = mean (1 - a), so that a Y + b smooths where the window's
// variance is small against epsilon and keeps edges where it is large.
// Blue holds how skin-like the block's chroma is under this frame's skin model (skin model step 3):
// a soft Mahalanobis distance to the skin's chroma, times the model's confidence that there is
// skin at all. Where the model says the chroma carries no information (grayscale), the spatial
// prior of the grid points stands in for it. The luma limits follow per pixel in the last pass.
// Alpha holds the window's mean luma (for whitening).
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;   // pass 2: packed means of Y and Y²
uniform sampler2D inputImageTexture2;  // pass 1: block means
uniform sampler2D inputImageTexture3;  // skin model (4x1)
uniform sampler2D inputImageTexture4;  // skin model step 1: grid points, alpha = spatial prior
out vec4 fragColor;

uniform float epsilon;

const float chromaFloor = 0.014;  // the least chroma deviation the mask allows (noise, JPEG)
const float chromaScale = 1.2;    // the kernel-weighted spread underestimates the skin's

float unpack16(vec2 pair) {
    return (pair.x * 255.0 + pair.y) / 255.0;
}

float skinLikelihood(vec3 rgb) {
    vec4 texel0 = texelFetch(inputImageTexture3, ivec2(0, 0), 0);
    vec4 texel2 = texelFetch(inputImageTexture3, ivec2(2, 0), 0);
    vec4 texel3 = texelFetch(inputImageTexture3, ivec2(3, 0), 0);
    vec2 meanChroma = vec2(unpack16(texel0.rg), unpack16(texel0.ba)) - 0.5;
    vec2 deviation = chromaScale * 0.25 * vec2(unpack16(texel2.rg), unpack16(texel2.ba));
    float correlation = 2.0 * texel3.r - 1.0;

    vec2 offset = vec2(dot(rgb, vec3(-0.168736, -0.331264, 0.5)), dot(rgb, vec3(0.5, -0.418688, -0.081312))) - meanChroma;
    float floor2 = chromaFloor * chromaFloor;
    float varianceCb = deviation.x * deviation.x + floor2;
    float varianceCr = deviation.y * deviation.y + floor2;
    float covariance = correlation * deviation.x * deviation.y;
    float determinant = max(varianceCb * varianceCr - covariance * covariance, 1e-12);
    float distance2 = (varianceCr * offset.x * offset.x - 2.0 * covariance * offset.x * offset.y + varianceCb * offset.y * offset.y) / determinant;
    float chromaScore = 1.0 - smoothstep(1.5, 3.0, sqrt(distance2));

    float spatial = smoothstep(0.15, 0.5, texture(inputImageTexture4, textureCoordinate).a);
    return mix(spatial, chromaScore, texel3.g) * texel3.b;
}

void main() {
    ivec2 size = textureSize(inputImageTexture, 0);
    ivec2 position = ivec2(gl_FragCoord.xy);
    float mean = 0.0;
    float meanOfSquares = 0.0;
    for (int offset = -2; offset <= 2; ++offset) {
        vec4 moments = texelFetch(inputImageTexture, ivec2(position.x, clamp(position.y + offset, 0, size.y - 1)), 0);
        mean += unpack16(moments.xy);
        meanOfSquares += unpack16(moments.zw);
    }
    mean /= 5.0;
    meanOfSquares /= 5.0;
    float variance = max(meanOfSquares - mean * mean, 0.0);
    // ε is for skin at mid luma; darker skin has proportionally less contrast in pores and
    // wrinkles, and in the eyes and hair around it, so ε follows the window's brightness.
    float brightness = (mean + 0.1) / 0.7;
    float a = variance / (variance + epsilon * brightness * brightness);
    float skin = skinLikelihood(texelFetch(inputImageTexture2, position, 0).rgb);
    fragColor = vec4(a, mean * (1.0 - a), skin, mean);
}
