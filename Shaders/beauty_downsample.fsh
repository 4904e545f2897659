#version 300 es
// Beauty, pass 1 (reduced resolution): the mean colour of the input block under each output pixel
// (four bilinear samples, each the mean of 2x2 texels) and, in alpha, how skin-like that colour is.
//
// Skin likelihood from the block's mean colour in the BT.601 CbCr plane: skin tones, light or
// dark, cluster in a narrow wedge of hue around 131° (from the Cb axis) at moderate chroma; brown
// and blond hair sit at a more yellow hue (about 145°-155°), clothes and backgrounds elsewhere or at
// higher or lower chroma. The weights fall off smoothly, and fade out in near-black blocks where
// chroma is noise.
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;
out vec4 fragColor;

uniform vec2 sampleOffset;  // a quarter of a block, in texture coordinates

float skinLikelihood(vec3 rgb) {
    float luma = dot(rgb, vec3(0.299, 0.587, 0.114));
    vec2 chroma = vec2(dot(rgb, vec3(-0.168736, -0.331264, 0.5)), dot(rgb, vec3(0.5, -0.418688, -0.081312)));
    float saturation = length(chroma);
    if (saturation < 0.03) {
        return 0.0;  // gray: no hue (and atan(0, 0) is undefined)
    }
    float hue = degrees(atan(chroma.y, chroma.x));
    float hueWeight = 1.0 - smoothstep(7.0, 15.0, abs(hue - 131.0));
    float saturationWeight = smoothstep(0.03, 0.06, saturation) * (1.0 - smoothstep(0.24, 0.29, saturation));
    return hueWeight * saturationWeight * smoothstep(0.08, 0.25, luma);
}

void main() {
    vec3 mean = 0.25 * (texture(inputImageTexture, textureCoordinate + vec2(-sampleOffset.x, -sampleOffset.y)).rgb
                        + texture(inputImageTexture, textureCoordinate + vec2(sampleOffset.x, -sampleOffset.y)).rgb
                        + texture(inputImageTexture, textureCoordinate + vec2(-sampleOffset.x, sampleOffset.y)).rgb
                        + texture(inputImageTexture, textureCoordinate + vec2(sampleOffset.x, sampleOffset.y)).rgb);
    fragColor = vec4(mean, skinLikelihood(mean));
}
