#version 300 es
// Beauty, skin model step 1 (a 32x32 grid over the frame): the mean colour around each grid point
// (four bilinear samples of the reduced image) and, in alpha, how much the point counts when the
// skin colour is estimated: inside the face regions' inner ellipses when the user gave face
// regions, otherwise a broad prior around where portraits put the face (centred, upper middle).
// Read bilinearly, alpha is also the spatial prior the mask falls back on for grayscale frames.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;  // pass 1: block means
out vec4 fragColor;

uniform vec2 sampleOffset;   // a quarter of a grid cell, in texture coordinates
uniform mat4 faceRegions;    // up to four face rectangles (x, y, width, height; 0...1, top-left origin), one per column
uniform int faceCount;

float positionWeight(vec2 point) {
    if (faceCount == 0) {
        vec2 distance = (point - vec2(0.5, 0.35)) / vec2(0.2, 0.18);
        return exp(-0.5 * dot(distance, distance));
    }
    float weight = 0.0;
    for (int index = 0; index < 4; ++index) {
        if (index >= faceCount) {
            break;
        }
        vec4 region = faceRegions[index];
        vec2 distance = (point - (region.xy + 0.5 * region.zw)) / max(0.5 * region.zw, vec2(1e-4));
        weight = max(weight, 1.0 - smoothstep(0.55, 1.0, length(distance)));
    }
    return weight;
}

void main() {
    vec3 mean = 0.25 * (texture(inputImageTexture, textureCoordinate + vec2(-sampleOffset.x, -sampleOffset.y)).rgb
                        + texture(inputImageTexture, textureCoordinate + vec2(sampleOffset.x, -sampleOffset.y)).rgb
                        + texture(inputImageTexture, textureCoordinate + vec2(-sampleOffset.x, sampleOffset.y)).rgb
                        + texture(inputImageTexture, textureCoordinate + vec2(sampleOffset.x, sampleOffset.y)).rgb);
    fragColor = vec4(mean, positionWeight(textureCoordinate));
}
