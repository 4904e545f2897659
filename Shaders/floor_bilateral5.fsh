#version 300 es
// Benchmark floor: a 5x5 bilateral filter in one pass (25 texelFetch taps, one exp per tap),
// the textbook core of a skin-smoothing filter (sigma 2 px in space, 0.1 in range).
precision highp float;
precision highp int;
layout(location = 0) out vec4 fragColor;
uniform sampler2D source;
uniform ivec2 lastPixel;

void main() {
    ivec2 centre = ivec2(gl_FragCoord.xy);
    vec3 c0 = texelFetch(source, centre, 0).rgb;
    vec3 sum = vec3(0.0);
    float weights = 0.0;
    const float inverseSpace = 1.0 / (2.0 * 2.0 * 2.0);
    const float inverseRange = 1.0 / (2.0 * 0.1 * 0.1);
    for (int dy = -2; dy <= 2; dy++) {
        for (int dx = -2; dx <= 2; dx++) {
            vec3 c = texelFetch(source, clamp(centre + ivec2(dx, dy), ivec2(0), lastPixel), 0).rgb;
            vec3 d = c - c0;
            float w = exp(-float(dx * dx + dy * dy) * inverseSpace - dot(d, d) * inverseRange);
            sum += c * w;
            weights += w;
        }
    }
    fragColor = vec4(sum / weights, 1.0);
}
