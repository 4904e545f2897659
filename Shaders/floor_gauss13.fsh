#version 300 es
// Benchmark floor: one axis of a separable 13-tap Gaussian (sigma 2.5 px), texelFetch at clamped
// integer coordinates (rawgl's gauss13); run twice, `direction` (1,0) then (0,1).
precision highp float;
precision highp int;
layout(location = 0) out vec4 fragColor;
uniform sampler2D source;
uniform ivec2 lastPixel;
uniform ivec2 direction;

const float weights[7] = float[7](0.16100337, 0.14862485, 0.11691244, 0.07836876, 0.04476494,
                                  0.02178944, 0.00903789);

void main() {
    ivec2 centre = ivec2(gl_FragCoord.xy);
    vec4 sum = weights[0] * texelFetch(source, centre, 0);
    for (int i = 1; i <= 6; i++) {
        sum += weights[i] * (texelFetch(source, clamp(centre + i * direction, ivec2(0), lastPixel), 0)
                             + texelFetch(source, clamp(centre - i * direction, ivec2(0), lastPixel), 0));
    }
    fragColor = sum;
}
