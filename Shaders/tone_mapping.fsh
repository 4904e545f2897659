#version 300 es
// HDR (PQ or HLG, any primaries) to SDR BT.709: BT.2390's EETF. The picture is made display light
// in cd/m² (PQ's EOTF; HLG's inverse OETF and its OOTF with the system gamma for its peak), turned
// into BT.709 primaries, compressed by the EETF (a Hermite knee in PQ space from the source's peak
// to the target's, identity below the knee) on each pixel's largest component with the colour
// kept, hard-clipped to the BT.709 gamut, and encoded with BT.1886's inverse (gamma 2.4, the SDR
// display the target peak stands for).
precision highp float;

in vec2 textureCoordinate;
out vec4 fragColor;
uniform sampler2D inputImageTexture;
uniform int hlg;               // 1: HLG input; 0: PQ
uniform float targetPeak;      // cd/m² of SDR white (1.0 out)
// The EETF's constants, worked out once a frame (ToneMapping): the source's peak in PQ, the
// target's peak as a fraction of it, and the knee where the curve leaves the identity.
uniform float sourcePeakPQ;
uniform float maximumLevel;
uniform float kneeLevel;
uniform float hlgPeak;         // HLG: the nominal display peak its OOTF assumes (1000)
uniform mat3 toOutputPrimaries;  // linear source RGB -> linear BT.709 RGB
uniform vec3 sourceLumaWeights;  // the source primaries' luminance of R, G, B

const float m1 = 0.1593017578125, m2 = 78.84375;
const float c1 = 0.8359375, c2 = 18.8515625, c3 = 18.6875;

// PQ signal -> display light as a fraction of 10000 cd/m².
vec3 pqToLinear(vec3 signal) {
    vec3 p = pow(max(signal, 0.0), vec3(1.0 / m2));
    return pow(max(p - c1, 0.0) / (c2 - c3 * p), vec3(1.0 / m1));
}

float linearToPQ(float light) {
    float p = pow(max(light, 0.0), m1);
    return pow((c1 + c2 * p) / (1.0 + c3 * p), m2);
}

float pqToLinear(float signal) { return pqToLinear(vec3(signal)).x; }

// HLG signal -> scene light 0...1 (BT.2100's inverse OETF).
vec3 hlgToScene(vec3 signal) {
    const float a = 0.17883277, b = 0.28466892, c = 0.55991073;
    vec3 e = max(signal, 0.0);
    vec3 low = e * e / 3.0;
    vec3 high = (exp((e - c) / a) + b) / 12.0;
    return mix(low, high, step(0.5, e));
}

// BT.2390's EETF on a light level in cd/m²: identity up to the knee, then a Hermite spline in PQ
// space that lands the source's peak on the target's.
float eetf(float light) {
    float e = linearToPQ(light / 10000.0) / sourcePeakPQ;
    if (e > kneeLevel && kneeLevel < 1.0) {
        float t = (e - kneeLevel) / (1.0 - kneeLevel);
        float t2 = t * t, t3 = t2 * t;
        e = (2.0 * t3 - 3.0 * t2 + 1.0) * kneeLevel + (t3 - 2.0 * t2 + t) * (1.0 - kneeLevel)
            + (-2.0 * t3 + 3.0 * t2) * maximumLevel;
    }
    return pqToLinear(min(e, 1.0) * sourcePeakPQ) * 10000.0;
}

void main() {
    vec4 color = texture(inputImageTexture, textureCoordinate);
    vec3 light;  // display light, cd/m²
    if (hlg == 1) {
        vec3 scene = hlgToScene(color.rgb);
        float luminance = max(dot(sourceLumaWeights, scene), 1e-6);
        float gamma = 1.2 + 0.42 * log(hlgPeak / 1000.0) / log(10.0);
        light = hlgPeak * pow(luminance, gamma - 1.0) * scene;
    } else {
        light = pqToLinear(color.rgb) * 10000.0;
    }
    light = max(toOutputPrimaries * light, 0.0);
    float largest = max(max(light.r, light.g), light.b);
    vec3 mapped = largest > 1e-6 ? light * (eetf(largest) / largest) : light;
    vec3 relative = clamp(mapped / targetPeak, 0.0, 1.0);
    fragColor = vec4(pow(relative, vec3(1.0 / 2.4)), color.a);
}
