#version 300 es
// 5x5 bilateral blur: each neighbour weighs exp(-d² / 2 spatialSigma²) * exp(-|Δrgb|² / 2 rangeSigma²),
// d in texels and Δrgb the RGB difference to the centre (0...1 units); weights are normalised.
// Exact texel reads (texelFetch, borders repeated): a bilinear read at a texel centre gives the
// same value and costs a software rasterizer twice as much. The output is the input's size.
// Alpha is filtered with the same weights, but for an opaque picture (OPAQUE_INPUT 1: the
// picture's alpha is 1 everywhere), where the sums leave it out: a fifth of the pass on llvmpipe.
precision highp float;
precision highp int;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

uniform float spatialFactor;  // -1 / (2 spatialSigma²)
uniform float rangeFactor;    // -1 / (2 rangeSigma²)
#ifndef OPAQUE_INPUT
#define OPAQUE_INPUT 0
#endif
#if OPAQUE_INPUT == 1
#define FILTERED rgb
#else
#define FILTERED rgba
#endif

void main() {
    ivec2 centre = ivec2(gl_FragCoord.xy);
    ivec2 last = textureSize(inputImageTexture, 0) - 1;
    vec4 middle = texelFetch(inputImageTexture, centre, 0);
#if OPAQUE_INPUT == 1
    vec3 sum = vec3(0.0);
#else
    vec4 sum = vec4(0.0);
#endif
    float total = 0.0;
    for (int y = -2; y <= 2; ++y) {
        for (int x = -2; x <= 2; ++x) {
            vec4 neighbour = texelFetch(inputImageTexture, clamp(centre + ivec2(x, y), ivec2(0), last), 0);
            vec3 difference = neighbour.rgb - middle.rgb;
            float weight = exp(spatialFactor * float(x * x + y * y) + rangeFactor * dot(difference, difference));
            sum += neighbour.FILTERED * weight;
            total += weight;
        }
    }
#if OPAQUE_INPUT == 1
    fragColor = vec4(sum / total, middle.a);
#else
    fragColor = sum / total;
#endif
}
