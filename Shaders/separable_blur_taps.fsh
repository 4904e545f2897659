#version 300 es
// One direction of a separable, symmetric blur of RADIUS texels each side, one exact texelFetch a
// texel: the kernel's own weights, with no bilinear blending rounded to the sampler's precision.
// RADIUS is a compile-time constant (a `ShaderVariant` define), so the loop unrolls. Edges repeat
// the border pixels.
precision highp float;
precision highp int;
#ifndef RADIUS
#define RADIUS 6
#endif
uniform sampler2D inputImageTexture;
uniform ivec2 direction;           // (1, 0) or (0, 1)
uniform float weights[RADIUS + 1]; // weights[0] for the centre, weights[k] for each texel k away
out vec4 fragColor;

void main() {
    ivec2 centre = ivec2(gl_FragCoord.xy);
    ivec2 last = textureSize(inputImageTexture, 0) - 1;
    vec4 sum = weights[0] * texelFetch(inputImageTexture, centre, 0);
    for (int k = 1; k <= RADIUS; ++k) {
        ivec2 offset = k * direction;
        sum += weights[k] * (texelFetch(inputImageTexture, min(centre + offset, last), 0)
                             + texelFetch(inputImageTexture, max(centre - offset, ivec2(0)), 0));
    }
    fragColor = sum;
}
