#version 300 es
// Beauty, skin model step 2 (12x12 bins over the BT.601 CbCr plane, Cb -0.30...0.06,
// Cr -0.06...0.30): a kernel density of the grid points' chroma at each bin centre, each point
// weighted by its position weight and a broad luma prior (no near-black, no blown-out points),
// as a share of all the position weight (16 bits in red and green).
precision highp float;
uniform sampler2D inputImageTexture;  // step 1: 32x32 grid points
out vec4 fragColor;

const vec2 chromaOrigin = vec2(-0.30, -0.06);
const float binSize = 0.03;
const float kernelWidth = 0.02;

vec2 chroma(vec3 rgb) {
    return vec2(dot(rgb, vec3(-0.168736, -0.331264, 0.5)), dot(rgb, vec3(0.5, -0.418688, -0.081312)));
}

float lumaPrior(vec3 rgb) {
    float luma = dot(rgb, vec3(0.299, 0.587, 0.114));
    return smoothstep(0.04, 0.12, luma) * (1.0 - smoothstep(0.93, 0.98, luma));
}

vec2 pack16(float value) {
    float scaled = clamp(value, 0.0, 1.0) * 255.0;
    float high = floor(scaled);
    return vec2(high / 255.0, scaled - high);
}

void main() {
    vec2 centre = chromaOrigin + (floor(gl_FragCoord.xy) + 0.5) * binSize;
    float density = 0.0;
    float total = 0.0;
    for (int y = 0; y < 32; ++y) {
        for (int x = 0; x < 32; ++x) {
            vec4 point = texelFetch(inputImageTexture, ivec2(x, y), 0);
            vec2 offset = (chroma(point.rgb) - centre) / kernelWidth;
            density += point.a * lumaPrior(point.rgb) * exp(-0.5 * dot(offset, offset));
            total += point.a;
        }
    }
    fragColor = vec4(pack16(density / max(total, 1e-6)), 0.0, 1.0);
}
