#version 300 es
// Refines a person mask found at a small size (a segmentation model's output) for a frame:
// joint bilateral upsampling guided by the frame, then temporal smoothing.
//
// Each output pixel takes the mask texels of the 3x3 block around the nearest one, weighted by
// their distance (a Gaussian of one mask texel) and by how close the frame's colour at that texel
// (the frame shrunk to the mask's size, packed beside the mask) is to the frame's colour here, so
// the mask's edge moves onto the nearest colour edge instead of staying a blurred staircase. The
// result is blended with the previous frame's refined mask where the two differ a little (noise
// between analyses does not shimmer) and hardly where they differ much (a moving person is
// followed at once).
precision highp float;
in vec2 textureCoordinate;
uniform sampler2D inputImageTexture;   // the frame (the guide)
uniform sampler2D inputImageTexture2;  // the frame at the mask's size in rgb, the mask in a
uniform sampler2D inputImageTexture3;  // the previous refined mask, person in .r
uniform vec2 maskSize;                 // the mask's size in texels
uniform float rangeSigma;              // colour distance at which a texel's weight falls to 0.6
uniform float keep;                    // how much of the previous mask stays where they agree (0: none)
out vec4 fragColor;

void main() {
    vec3 guide = texture(inputImageTexture, textureCoordinate).rgb;
    vec2 position = textureCoordinate * maskSize - 0.5;  // in mask texels, 0 at the first centre
    vec2 nearest = floor(position + 0.5);
    float rangeScale = -0.5 / (rangeSigma * rangeSigma);
    float sum = 0.0;
    float total = 0.0;
    for (int j = -1; j <= 1; ++j) {
        for (int i = -1; i <= 1; ++i) {
            vec2 texel = nearest + vec2(float(i), float(j));
            vec2 offset = texel - position;
            vec4 texelValue = texture(inputImageTexture2, (clamp(texel, vec2(0.0), maskSize - 1.0) + 0.5) / maskSize);
            vec3 difference = texelValue.rgb - guide;
            float weight = exp(-0.5 * dot(offset, offset) + rangeScale * dot(difference, difference));
            sum += weight * texelValue.a;
            total += weight;
        }
    }
    // Far from every texel's colour (a colour the shrunken frame does not hold): plain bilinear.
    float mask = total > 1e-4 ? sum / total : texture(inputImageTexture2, textureCoordinate).a;
    float previous = texture(inputImageTexture3, textureCoordinate).r;
    float stays = keep * (1.0 - smoothstep(0.15, 0.5, abs(mask - previous)));
    mask = mix(mask, previous, stays);
    fragColor = vec4(mask, mask, mask, 1.0);
}
